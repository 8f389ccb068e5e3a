package dev.kvrelay.engine;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.hub.HubSlot;
import dev.kvrelay.engine.load.PoolLoadAggregator;
import dev.kvrelay.engine.membership.MaterializationDecision;
import dev.kvrelay.engine.recovery.PoolRecovery;
import dev.kvrelay.engine.recovery.SourceBinding;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.eventplane.EventSubscription;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Confined to the engine's control task (every field and method), except the components it owns, which keep
 * their own contracts: one pool generation at run time: its descriptor and binding, the pool actor, the
 * recovery, the hub slot, the event-plane subscriptions and the load aggregator.
 */
final class PoolRuntime {
  final long slotIncarnation;
  final MaterializationDecision.Materialize binding;
  final PoolActor actor;
  final PoolRecovery recovery;
  final HubSlot hub;
  final PoolLoadAggregator load;
  /** The kv-events subscription (connected to the publishers' channels on planes that need it), or null. */
  @Nullable EventSubscription kvEvents;
  /** The kv_metrics subscription, or null. */
  @Nullable EventSubscription kvMetrics;
  /** Channels each subscription is connected to (channel-connecting planes only). */
  final java.util.Set<dev.kvrelay.spi.eventplane.ChannelLocator> kvEventChannels = new java.util.HashSet<>();
  final java.util.Set<dev.kvrelay.spi.eventplane.ChannelLocator> kvMetricChannels = new java.util.HashSet<>();
  KvPoolDescriptor descriptor;
  List<SourceBinding> sources = List.of();
  Map<Long, dev.kvrelay.spi.discovery.RuntimeConfig> runtimeConfigs = Map.of();
  /** The host's pending-fault queue of this generation (producer.md §3.5). */
  final SourceFaultQueue faults = new SourceFaultQueue();

  /** Set when a fault or the hub asks for a fenced retirement; the next reconcile retires and restarts. */
  @Nullable String fenceReason;
  boolean retired;

  PoolRuntime(long slotIncarnation, MaterializationDecision.Materialize binding, KvPoolDescriptor descriptor,
      PoolActor actor, PoolRecovery recovery, HubSlot hub, PoolLoadAggregator load) {
    this.slotIncarnation = slotIncarnation;
    this.binding = binding;
    this.descriptor = descriptor;
    this.actor = actor;
    this.recovery = recovery;
    this.hub = hub;
    this.load = load;
  }

  KvPoolId poolId() {
    return descriptor.poolId();
  }

  ProducerIdentity producer() {
    return descriptor.producer();
  }

  EventScope.Endpoint kvEventsScope() {
    return new EventScope.Endpoint(binding.kvStateEndpoint());
  }

  void updateSources(Collection<SourceBinding> next) {
    List<SourceBinding> copy = List.copyOf(next);
    if (!copy.equals(sources)) {
      sources = copy;
      recovery.updateSources(copy);
    }
  }

  /**
   * Withdrawal steps 2 (producer.md §2.7): the caller has already removed the catalog entry and the load
   * entry and retired the hub. Graceful: stop recovery, then shut the actor down (publishes the tail); fenced:
   * stop recovery and fence the actor (discards the tail).
   */
  CompletableFuture<Void> teardown(boolean fenced) {
    retired = true;
    for (EventSubscription s : new EventSubscription[] {kvEvents, kvMetrics}) {
      if (s == null) {
        continue;
      }
      try {
        s.close();
      } catch (RuntimeException e) {
        RelayHost.LOG.warn("closing an event subscription failed", e);
      }
    }
    recovery.close();
    return fenced ? actor.fence() : actor.shutdown();
  }

  /** The actor's counters, or null if it does not answer within {@code timeoutMs}. */
  PoolStats.@Nullable Actor actorStats(long timeoutMs) {
    CompletableFuture<PoolStats.Actor> reply = new CompletableFuture<>();
    if (!actor.submit(new PoolCommand.Stats(reply)).accepted()) {
      return null;
    }
    try {
      return reply.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return null;
    }
  }

  static CkfProducer newProducer(RelayEngineConfig config) throws dev.kvrelay.ckf.CkfConfigException {
    return CkfProducer.create(dev.kvrelay.ckf.producer.CkfProducerConfig
        .forExpectedBlocks(config.expectedUniqueBlocks())
        .withPublishEveryNEvents(config.publicationThreshold()));
  }
}
