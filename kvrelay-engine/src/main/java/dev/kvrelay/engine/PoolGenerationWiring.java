package dev.kvrelay.engine;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.engine.actor.FaultListener;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SourceFault;
import dev.kvrelay.engine.hub.HubSlot;
import dev.kvrelay.engine.hub.HubSource;
import dev.kvrelay.engine.load.PoolLoadAggregator;
import dev.kvrelay.engine.load.PoolLoadSettings;
import dev.kvrelay.engine.membership.EndpointMembership;
import dev.kvrelay.engine.membership.MaterializationDecision;
import dev.kvrelay.engine.recovery.PoolRecovery;
import dev.kvrelay.engine.wan.DescriptorException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventTopics;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Confined to the engine's control task: builds one pool generation (producer.md §2.6) in one place: its layout
 * generation and producer identity, descriptor, CKF producer, hub slot, pool actor, recovery, load aggregator and
 * its two event-plane subscriptions.
 */
final class PoolGenerationWiring {
  private final RelayEngineConfig config;
  private final RelayIdentity identity;
  private final LongSupplier nanoTime;
  private final ControlTask control;
  private final PoolParts parts;
  private final HostCounters counters;
  private final EventPlaneListeners listeners;
  private final PoolLoadSettings loadSettings = PoolLoadSettings.DEFAULT;
  private long nextLayoutGeneration = 1;

  /** Not thread-safe (thrown and caught on the control task): why a generation could not start; the slot retries. */
  static final class StartFailure extends Exception {
    private static final long serialVersionUID = 1L;

    StartFailure(@Nullable String why) {
      super(why, null, false, false);
    }
  }

  PoolGenerationWiring(HostServices services, HostCounters counters, EventPlaneListeners listeners) {
    this.config = services.config();
    this.identity = services.identity();
    this.nanoTime = services.nanoTime();
    this.control = services.control();
    this.parts = services.pools();
    this.counters = counters;
    this.listeners = listeners;
  }

  /**
   * Starts the next layout generation of {@code binding} for {@code m}'s endpoint: everything is running and
   * subscribed when this returns, but nothing is published (the caller binds the sources and lists the pool).
   *
   * @param onSourceFaults run on the control task when the actor has queued source faults for the host
   * @throws StartFailure if the generation space is exhausted, the descriptor or producer is refused, or the event
   *     plane refuses a subscription (then whatever was built is torn down, fenced)
   */
  PoolRuntime build(long slotIncarnation, EndpointMembership m, MaterializationDecision.Materialize binding,
      Consumer<PoolRuntime> onSourceFaults) throws StartFailure {
    if (nextLayoutGeneration == 0) {
      throw new StartFailure("layout generation space exhausted");
    }
    long generation = nextLayoutGeneration++;
    KvPoolId poolId = new KvPoolId(binding.domain().id(), config.dcId());
    ProducerIdentity producer =
        new ProducerIdentity(poolId, identity.relayIncarnation(), generation, config.ckfFormat());
    KvPoolDescriptor descriptor;
    CkfProducer ckf;
    try {
      descriptor = KvPoolDescriptor.of(producer, m.endpoint(), m.registrations(),
          binding.domain().querySemantics(), m.roles());
      ckf = PoolRuntime.newProducer(config);
    } catch (DescriptorException | CkfConfigException e) {
      throw new StartFailure(e.getMessage());
    }
    GenerationLink link = new GenerationLink(onSourceFaults);
    HubSlot hub = parts.hubs().attach(poolId, producer, config.ckfFormat(), link);
    PoolActor actor = PoolActor.start(ckf, parts.actorConfig(), parts.actorScheduler(), hub, link);
    link.actor = actor;
    // The recovery is the actor's ingest stage: one queue (its inbox) and one hand-off between a delivery thread and
    // the pool's single writer, the member checked once (ARCHITECTURE.md §3).
    PoolRecovery recovery = PoolRecovery.onActor(poolId, parts.recoverySettings(), actor, parts.requestPlane(),
        parts.recoveryPermits(), parts.actorScheduler(), nanoTime);
    PoolLoadAggregator load = new PoolLoadAggregator(loadSettings);
    PoolRuntime runtime = new PoolRuntime(slotIncarnation, binding, descriptor, actor, recovery, hub, load);
    link.runtime = runtime;
    runtime.runtimeConfigs = m.runtimeConfigs();
    load.refresh(m.runtimeConfigs());
    try {
      runtime.kvEvents = parts.eventPlane().subscribe(runtime.kvEventsScope(), EventTopics.KV_EVENTS,
          listeners.kvEvents(runtime));
      runtime.kvMetrics = parts.eventPlane().subscribe(
          new EventScope.Endpoint(m.endpoint()), EventTopics.KV_METRICS, listeners.kvMetrics(runtime));
    } catch (EventPlaneException e) {
      hub.retire();
      // The future is not needed: it only marks the actor's end (it never completes exceptionally).
      CompletableFuture<Void> unused = runtime.teardown(true);
      throw new StartFailure("event plane subscription failed: " + e.getMessage());
    }
    return runtime;
  }

  /**
   * Thread-safe (two volatile fields, each written once on the control task): one generation's back-references,
   * the hub slot's source and the actor's fault listener. It must stay a late binding: the hub slot is the actor's
   * publication listener while the actor is the hub's source, and the fault listener queues into the {@link
   * PoolRuntime} that holds both; neither {@code HubRegistry.attach} nor {@code PoolActor.start} takes its peer
   * later, so the link is bound right after the actor starts and the runtime exists. Before that a hub
   * subscription fails with PUBLICATION_UNAVAILABLE and a source fault is counted but not queued.
   */
  private final class GenerationLink implements HubSource, FaultListener {
    private final Consumer<PoolRuntime> onSourceFaults;
    volatile @Nullable PoolActor actor;
    volatile @Nullable PoolRuntime runtime;

    GenerationLink(Consumer<PoolRuntime> onSourceFaults) {
      this.onSourceFaults = onSourceFaults;
    }

    @Override
    public CompletableFuture<BarrierSnapshot> subscribe(long lease) {
      CompletableFuture<BarrierSnapshot> reply = new CompletableFuture<>();
      PoolActor a = actor;
      if (a == null || !a.submit(new PoolCommand.Subscribe(lease, reply)).accepted()) {
        reply.completeExceptionally(new RelayException(
            RelayErrorReason.PUBLICATION_UNAVAILABLE, "pool actor did not accept the subscription"));
      }
      return reply;
    }

    @Override
    public void retireLease(long lease) {
      PoolActor a = actor;
      if (a != null) {
        a.submit(new PoolCommand.RetireLease(lease));
      }
    }

    @Override
    public void onFault(SourceFault fault) {
      counters.sourceFaults.increment();
      PoolRuntime r = runtime;
      if (r != null && r.faults.offer(fault)) {
        control.execute(() -> onSourceFaults.accept(r));
      }
    }
  }
}
