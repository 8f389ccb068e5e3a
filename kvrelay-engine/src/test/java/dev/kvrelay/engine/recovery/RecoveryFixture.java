package dev.kvrelay.engine.recovery;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.ManualScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.RejectReason;
import dev.kvrelay.engine.actor.SourceFault;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import dev.kvrelay.spi.eventplane.TransportAddress;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * Not thread-safe: confined to the test thread. A recovery run as the ingest stage of a real pool actor on a manual
 * scheduler (the engine's wiring, {@link PoolRecovery#onActor}); a tap in front of the actor's inline commands records
 * every command the stage runs and may refuse or fail one.
 */
final class RecoveryFixture {
  static final KvPoolId POOL = pool();
  static final long WORKER = 7587891234567890123L;
  static final MemberId MEMBER = new MemberId(WORKER, 0);
  static final long PUBLISHER = 0xABCDL;

  final ManualScheduler scheduler = new ManualScheduler();
  final ManualRequestPlane plane = new ManualRequestPlane(scheduler);
  /** The commands the actor accepted from the stage, in order. */
  final List<PoolCommand> commands = new ArrayList<>();
  /** The faults the actor raised. */
  final List<SourceFault> faults = new ArrayList<>();
  final Semaphore permits;
  /** Submits to refuse before accepting again. */
  int rejectNext;
  /** Submits that throw (a bug in the actor's submission path) before accepting again. */
  int throwNext;
  /** The actor closed: every submit is refused with CLOSED. */
  boolean actorClosed;
  final PoolActor actor;
  final PoolRecovery recovery;

  RecoveryFixture() {
    this(RecoverySettings.DEFAULTS, true, 16);
  }

  RecoveryFixture(RecoverySettings settings, boolean withClient, int permitCount) {
    permits = new Semaphore(permitCount);
    actor = PoolActor.start(CkfProducer.create(ActorHarness.config()), PoolActorConfig.DEFAULTS, scheduler,
        p -> true, faults::add);
    recovery = PoolRecovery.onActor(POOL, settings, actor, withClient ? plane : null, permits, scheduler,
        scheduler::now, PoolRecovery.INBOX_WAIT_NANOS, inline -> c -> tap(inline, c));
    scheduler.runReady();
  }

  private SubmitResult tap(Function<PoolCommand, SubmitResult> inline, PoolCommand c) {
    if (throwNext > 0) {
      throwNext--;
      throw new IllegalStateException("submission bug (test)");
    }
    if (actorClosed) {
      return new SubmitResult.Rejected(RejectReason.CLOSED);
    }
    if (rejectNext > 0) {
      rejectNext--;
      return new SubmitResult.Rejected(RejectReason.MAILBOX_FULL);
    }
    SubmitResult result = inline.apply(c);
    if (result.accepted()) {
      commands.add(c);
    }
    return result;
  }

  static KvPoolId pool() {
    byte[] b = new byte[16];
    Arrays.fill(b, (byte) 0x22);
    DigestIdentity d = new DigestIdentity(b, IdentitySource.EXPLICIT);
    return new KvPoolId(new IndexerDomainId(d, d), DcId.of(1));
  }

  static RecoveryTarget target(long instanceId) {
    return new RecoveryTarget(new DynamoEndpointId("dynamo", "backend", "generate"), instanceId,
        TransportAddress.tcp("10.0.0.1:4000"));
  }

  static SourceBinding recoverable(MemberId member, long publisher) {
    return new SourceBinding(member, publisher, Optional.of(target(member.workerId())));
  }

  static SourceBinding liveOnly(MemberId member, long publisher) {
    return new SourceBinding(member, publisher, Optional.empty());
  }

  ScriptedWorker worker(long instanceId) {
    ScriptedWorker w = new ScriptedWorker();
    plane.register(instanceId, w);
    return w;
  }

  void live(long publisher, RouterEvent e) {
    recovery.onLiveEvent(new EventEnvelope(publisher, 0, 0, EventTopics.KV_EVENTS), e);
    scheduler.runReady();
  }

  void live(RouterEvent e) {
    live(PUBLISHER, e);
  }

  void sources(SourceBinding... bindings) {
    recovery.updateSources(List.of(bindings));
    scheduler.runReady();
  }

  static RouterEvent stored(MemberId m, long id, long blockHash, long tokensHash) {
    return new RouterEvent(m.workerId(), StorageTier.DEVICE, ResidencyDomain.WORKER, id, m.dpRank(),
        new KvEventData.Stored(OptionalLong.empty(), OptionalLong.empty(), List.of(StoredBlock.of(blockHash, tokensHash))));
  }

  static RouterEvent stored(long id) {
    return stored(MEMBER, id, 1000 + id, 5000 + id);
  }

  static RouterEvent removed(MemberId m, long id, long... hashes) {
    return new RouterEvent(m.workerId(), StorageTier.DEVICE, ResidencyDomain.WORKER, id, m.dpRank(),
        KvEventData.Removed.of(hashes));
  }

  static RouterEvent cleared(MemberId m, long id) {
    return new RouterEvent(m.workerId(), StorageTier.DEVICE, ResidencyDomain.ABSENT, id, m.dpRank(),
        KvEventData.Cleared.INSTANCE);
  }

  static WorkerKvQueryResponse.TreeDump dump(long last, RouterEvent... events) {
    return new WorkerKvQueryResponse.TreeDump(List.of(events), last, "all");
  }

  static WorkerKvQueryResponse.Events events(long last, RouterEvent... events) {
    return new WorkerKvQueryResponse.Events(List.of(events), last);
  }

  /** The event ids of the Apply commands, in order. */
  List<Long> appliedIds() {
    List<Long> ids = new ArrayList<>();
    for (PoolCommand c : commands) {
      if (c instanceof PoolCommand.Apply a) {
        ids.add(a.event().eventId());
      }
    }
    return ids;
  }

  <T extends PoolCommand> List<T> commands(Class<T> type) {
    List<T> out = new ArrayList<>();
    for (PoolCommand c : commands) {
      if (type.isInstance(c)) {
        out.add(type.cast(c));
      }
    }
    return out;
  }

  PoolStats.Recovery stats() {
    return recovery.stats();
  }
}
