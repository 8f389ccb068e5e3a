package dev.kvrelay.engine.recovery;

import dev.kvrelay.engine.actor.ManualScheduler;
import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SourceFault;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * Not thread-safe: confined to the test thread. A real pool actor and a recovery on one manual scheduler, wired as the
 * engine wires them (the recovery runs as the actor's ingest stage).
 */
final class ActorHarness {
  final ManualScheduler scheduler = new ManualScheduler();
  final ManualRequestPlane plane = new ManualRequestPlane(scheduler);
  final CkfProducer producer;
  final PoolActor actor;
  final List<SourceFault> faults = new ArrayList<>();
  final PoolRecovery recovery;

  ActorHarness() {
    producer = CkfProducer.create(config());
    actor = PoolActor.start(producer, PoolActorConfig.DEFAULTS, scheduler, p -> true, faults::add);
    actor.submit(new PoolCommand.Subscribe(1, new CompletableFuture<>()));
    scheduler.runReady();
    // The engine's wiring: the recovery is the actor's ingest stage (one task, one queue, one member check).
    recovery = PoolRecovery.onActor(RecoveryFixture.POOL, RecoverySettings.DEFAULTS, actor, plane,
        new Semaphore(16), scheduler, scheduler::now);
  }

  static CkfProducerConfig config() {
    try {
      return CkfProducerConfig.of(CkfFormat.withDefaultSeed(1024), 500, 16);
    } catch (CkfConfigException e) {
      throw new AssertionError(e);
    }
  }

  void live(long publisher, RouterEvent e) {
    recovery.onLiveEvent(new EventEnvelope(publisher, 0, 0, EventTopics.KV_EVENTS), e);
    scheduler.runReady();
  }

  /** Lets every timer (retries, batches, publication) run out, then flushes the actor. */
  void quiesce() {
    scheduler.advanceMs(120_000);
    actor.submit(PoolCommand.Flush.INSTANCE);
    scheduler.runReady();
  }
}
