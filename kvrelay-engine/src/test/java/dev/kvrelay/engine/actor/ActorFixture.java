package dev.kvrelay.engine.actor;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/** Not thread-safe: one actor on a manual scheduler with recording listeners. */
public final class ActorFixture {
  final ManualScheduler scheduler = new ManualScheduler();
  final List<CkfPublication> published = new ArrayList<>();
  final List<SourceFault> faults = new ArrayList<>();
  boolean refuse;
  final PoolActor actor;

  ActorFixture(CkfProducerConfig producerConfig, PoolActorConfig config) {
    actor = PoolActor.start(CkfProducer.create(producerConfig), config, scheduler, p -> {
      if (refuse) {
        return false;
      }
      published.add(p);
      return true;
    }, faults::add);
  }

  ActorFixture() {
    this(config(1024, 16), PoolActorConfig.DEFAULTS);
  }

  static CkfProducerConfig config(int buckets, int threshold) {
    try {
      return CkfProducerConfig.of(CkfFormat.withDefaultSeed(buckets), 500, threshold);
    } catch (CkfConfigException e) {
      throw new AssertionError(e);
    }
  }

  static RouterEvent stored(long worker, int rank, long parent, long... externalAndTokens) {
    List<StoredBlock> blocks = new ArrayList<>();
    for (int i = 0; i < externalAndTokens.length; i += 2) {
      blocks.add(StoredBlock.of(externalAndTokens[i], externalAndTokens[i + 1]));
    }
    OptionalLong p = parent == 0 ? OptionalLong.empty() : OptionalLong.of(parent);
    return new RouterEvent(worker, StorageTier.DEVICE, ResidencyDomain.WORKER, 1, rank,
        new KvEventData.Stored(p, OptionalLong.empty(), blocks));
  }

  static RouterEvent removed(long worker, int rank, long... hashes) {
    return new RouterEvent(worker, StorageTier.DEVICE, ResidencyDomain.WORKER, 1, rank, KvEventData.Removed.of(hashes));
  }

  static RouterEvent cleared(long worker, int rank) {
    return new RouterEvent(worker, StorageTier.DEVICE, ResidencyDomain.ABSENT, 1, rank, KvEventData.Cleared.INSTANCE);
  }

  /**
   * Feeds the same event into a reference producer, exactly as the actor translates it (the one reference
   * translation the actor, recovery and engine tests share).
   */
  public static void feed(CkfProducer ref, RouterEvent e) {
    if (e.hasUnsupportedResidency() || !e.targetsPrimary()) {
      return;
    }
    if (e.data() instanceof KvEventData.Stored s) {
      StoredBatch b = new StoredBatch().reset(e.workerId(), e.dpRank());
      s.parentHash().ifPresent(b::parent);
      s.startPosition().ifPresent(b::startPosition);
      for (StoredBlock blk : s.blocks()) {
        b.addBlock(blk.blockHash(), blk.tokensHash());
      }
      ref.stored(b);
    } else if (e.data() instanceof KvEventData.Removed r) {
      ref.removed(e.workerId(), e.dpRank(), r.blockHashes());
    } else {
      ref.cleared(e.workerId(), e.dpRank());
    }
  }

  SubmitResult apply(RouterEvent e) {
    return actor.submit(new PoolCommand.Apply(new MemberId(e.workerId(), e.dpRank()), 77, e));
  }

  BarrierSnapshot subscribe(long lease) throws Exception {
    CompletableFuture<BarrierSnapshot> f = new CompletableFuture<>();
    actor.submit(new PoolCommand.Subscribe(lease, f));
    scheduler.runReady();
    return f.getNow(null);
  }

  PoolStats.Actor stats() {
    CompletableFuture<PoolStats.Actor> f = new CompletableFuture<>();
    actor.submit(new PoolCommand.Stats(f));
    scheduler.runReady();
    return f.join();
  }

  List<CkfDelta> deltas() {
    List<CkfDelta> out = new ArrayList<>();
    for (CkfPublication p : published) {
      if (p instanceof CkfDelta d) {
        out.add(d);
      }
    }
    return out;
  }

  /** A consumer replica: the barrier snapshot's words with every later delta applied in order. */
  static long[] replay(CkfSnapshot snapshot, List<CkfPublication> after) {
    long[] words = snapshot.words().clone();
    long seq = snapshot.sequence();
    for (CkfPublication p : after) {
      if (p instanceof CkfDelta d) {
        if (d.baseSequence() != seq) {
          throw new AssertionError("gap: base " + d.baseSequence() + " after " + seq);
        }
        for (int i = 0; i < d.imageCount(); i++) {
          words[d.bucket(i)] = d.word(i);
        }
        seq = d.sequence();
      } else if (p instanceof CkfSnapshot s) {
        words = s.words().clone();
        seq = s.sequence();
      }
    }
    return words;
  }
}
