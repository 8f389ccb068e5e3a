package dev.kvrelay.ckf.convergence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.consumer.Cbi1LaneFeed;
import dev.kvrelay.ckf.consumer.CkfLaneOwner;
import dev.kvrelay.ckf.consumer.GlobalCkfIndexer;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.GlobalCkfManifest;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryResult;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryStatus;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.ckf.hashing.SequenceHash;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.ckf.producer.RankReplacement;
import dev.kvrelay.ckf.producer.StoredBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Property (b) of issue 2: a consumer lane fed the producer's barrier snapshot and every delta, through
 * the real CBI1 encoder, decoder, snapshot assembly and envelope checks, holds exactly the producer's
 * words — across random Stored/Removed/Cleared traffic from several members, capacity omissions on a
 * deliberately small table, rank replacements, resubscriptions with a new lease, and several producers
 * feeding neighbouring lanes of one transposed table.
 */
class ProducerReplicaConvergenceProperties {
  private static final long CONSUMER = 77;
  private static final int PRODUCERS = 3;
  private static final int WORKERS = 3;
  private static final int RANKS = 2;

  @Test
  void replicaWordsEqualProducerWordsAfterEveryDrain() {
    qt().withExamples(150)
        .forAll(longs().all(), integers().between(1, 600), integers().between(0, 2))
        .checkAssert((seed, steps, sizeClass) -> new Run(seed, sizeClass).drive(steps));
  }

  /** One deterministic scenario; the seed reproduces it. */
  private static final class Run {
    final SplittableRandom rnd;
    final long seed;
    final CkfFormat format;
    final CkfProducer[] producers = new CkfProducer[PRODUCERS];
    final long[] dcIds = new long[PRODUCERS];
    final GlobalCkfIndexer<Integer> indexer;
    final List<GlobalCkfLaneIngestor<Integer>> lanes = new ArrayList<>();
    final List<Cbi1LaneFeed<Integer>> feeds = new ArrayList<>();
    final long[] epochs = new long[PRODUCERS];
    /** Per producer and member: the external ids currently stored (to remove and to chain from). */
    final List<Map<Long, List<Long>>> stored = new ArrayList<>();
    long nextExternal = 1;
    final StoredBatch batch = new StoredBatch();

    Run(long seed, int sizeClass) {
      this.seed = seed;
      this.rnd = new SplittableRandom(seed);
      long expected = sizeClass == 0 ? 16 : sizeClass == 1 ? 256 : 4096; // 8, 128, 2048 buckets
      try {
        CkfProducerConfig config = CkfProducerConfig.forExpectedBlocks(expected).withPublishEveryNEvents(4);
        this.format = config.format();
        List<CkfLaneOwner<Integer>> owners = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
          producers[p] = CkfProducer.create(config);
          dcIds[p] = rnd.nextLong();
          owners.add(new CkfLaneOwner<>(p, dcIds[p]));
          stored.add(new HashMap<>());
        }
        indexer = GlobalCkfIndexer.create(GlobalCkfManifest.of(CONSUMER, format, owners));
        for (int p = 0; p < PRODUCERS; p++) {
          lanes.add(indexer.claimLane(p));
          feeds.add(null);
          subscribe(p);
        }
      } catch (Exception e) {
        throw new AssertionError("seed " + seed, e);
      }
    }

    void drive(int steps) {
      try {
        for (int i = 0; i < steps; i++) {
          int p = rnd.nextInt(PRODUCERS);
          int dice = rnd.nextInt(100);
          if (dice < 55) {
            store(p);
          } else if (dice < 85) {
            remove(p);
          } else if (dice < 90) {
            clear(p);
          } else if (dice < 93) {
            replaceRank(p);
          } else if (dice < 96) {
            subscribe(p);
          } else {
            drainAndFeed(p);
          }
          if (producers[p].shouldDrain()) {
            drainAndFeed(p);
          }
        }
        for (int p = 0; p < PRODUCERS; p++) {
          drainAndFeed(p);
          assertConverged(p);
        }
        assertQueryFindsResidentChains();
      } catch (Exception e) {
        throw new AssertionError("seed " + seed, e);
      }
    }

    int memberKey(int worker, int rank) {
      return worker * RANKS + rank;
    }

    void store(int p) {
      int worker = rnd.nextInt(WORKERS);
      int rank = rnd.nextInt(RANKS);
      List<Long> mine = stored.get(p).computeIfAbsent((long) memberKey(worker, rank), k -> new ArrayList<>());
      batch.reset(worker, rank);
      if (!mine.isEmpty() && rnd.nextBoolean()) {
        batch.parent(mine.get(rnd.nextInt(mine.size())));
      }
      int n = 1 + rnd.nextInt(6);
      List<Long> added = new ArrayList<>();
      for (int b = 0; b < n; b++) {
        long ext = nextExternal++;
        // tokens hashes from a small alphabet so different members share canonical hashes
        batch.addBlock(ext, rnd.nextInt(40));
        added.add(ext);
      }
      switch (producers[p].stored(batch)) {
        case OK, CAPACITY_EXHAUSTED -> mine.addAll(added);
        default -> { }
      }
    }

    void remove(int p) {
      int worker = rnd.nextInt(WORKERS);
      int rank = rnd.nextInt(RANKS);
      List<Long> mine = stored.get(p).getOrDefault((long) memberKey(worker, rank), new ArrayList<>());
      int n = 1 + rnd.nextInt(4);
      long[] ids = new long[n];
      for (int i = 0; i < n; i++) {
        // mostly known ids, sometimes unknown ones (counted no-ops)
        ids[i] = !mine.isEmpty() && rnd.nextInt(5) > 0 ? mine.remove(rnd.nextInt(mine.size())) : -rnd.nextLong(1, 1000);
      }
      producers[p].removed(worker, rank, ids);
    }

    void clear(int p) {
      int worker = rnd.nextInt(WORKERS);
      int rank = rnd.nextInt(RANKS);
      producers[p].cleared(worker, rank);
      stored.get(p).remove((long) memberKey(worker, rank));
    }

    void replaceRank(int p) throws Exception {
      int worker = rnd.nextInt(WORKERS);
      int rank = rnd.nextInt(RANKS);
      RankReplacement replacement = RankReplacement.forMember(worker, rank);
      List<Long> fresh = new ArrayList<>();
      int n = rnd.nextInt(8);
      for (int b = 0; b < n; b++) {
        batch.reset(worker, rank);
        long ext = nextExternal++;
        batch.addBlock(ext, rnd.nextInt(40));
        replacement.pushStored(batch);
        fresh.add(ext);
      }
      producers[p].replaceRanks(List.of(replacement));
      stored.get(p).put((long) memberKey(worker, rank), fresh);
      drainAndFeed(p);
    }

    /** A new subscription: barrier snapshot; the tail goes to the old subscriber first. */
    void subscribe(int p) throws Exception {
      long newEpoch = ++epochs[p];
      BarrierSnapshot barrier = producers[p].snapshotAfterBarrier(newEpoch);
      if (barrier.tail() != null && feeds.get(p) != null) {
        feedDelta(p, barrier.tail());
      }
      LaneLease lease = new LaneLease(CONSUMER, p, newEpoch);
      assertThat(lanes.get(p).assign(p, format, lease)).isEqualTo(LaneAssignmentResult.ASSIGNED);
      Cbi1LaneFeed<Integer> feed = new Cbi1LaneFeed<>(lanes.get(p), p, dcIds[p], lease, format);
      feeds.set(p, feed);
      CkfSnapshot snapshot = barrier.snapshot();
      List<byte[]> chunks = Cbi1Encoder.encodeSnapshot(format, dcIds[p], snapshot.sequence(), snapshot.words());
      for (int c = 0; c < chunks.size(); c++) {
        Cbi1LaneFeed.FeedResult r = feed.snapshotChunk(snapshot.sequence(), snapshot.sequence(), chunks.get(c));
        assertThat(r.kind()).as("chunk %d: %s", c, r)
            .isEqualTo(c == chunks.size() - 1 ? Cbi1LaneFeed.Kind.SNAPSHOT_INSTALLED : Cbi1LaneFeed.Kind.CHUNK_ACCEPTED);
      }
      assertConverged(p);
    }

    void drainAndFeed(int p) throws Exception {
      CkfPublication publication = producers[p].drain();
      if (publication instanceof CkfDelta delta) {
        feedDelta(p, delta);
        Cbi1LaneFeed.FeedResult hb = feeds.get(p).heartbeat(delta.sequence(), delta.sequence(), new byte[0]);
        assertThat(hb.kind()).as("%s", hb).isEqualTo(Cbi1LaneFeed.Kind.HEARTBEAT_CONFIRMED);
      } else {
        assertThat(publication).isNotInstanceOf(CkfSnapshot.class); // oversize cannot happen at these sizes
      }
      assertConverged(p);
    }

    void feedDelta(int p, CkfDelta delta) throws Exception {
      byte[] frame = Cbi1Encoder.encodeDelta(format, dcIds[p], delta.baseSequence(), delta.sequence(),
          delta.buckets(), delta.words(), delta.imageCount());
      Cbi1LaneFeed.FeedResult r = feeds.get(p).delta(delta.baseSequence(), delta.sequence(), frame);
      assertThat(r.kind()).as("%s", r).isEqualTo(Cbi1LaneFeed.Kind.DELTA_APPLIED);
    }

    void assertConverged(int p) {
      if (producers[p].pendingEvents() != 0) {
        return; // words may differ only by the undrained tail; checked after the next drain
      }
      long[] expected = producers[p].copyWords();
      for (int b = 0; b < expected.length; b++) {
        if (indexer.table().load(b, p) != expected[b]) {
          throw new AssertionError("lane " + p + " bucket " + b + ": replica "
              + Long.toHexString(indexer.table().load(b, p)) + " != producer " + Long.toHexString(expected[b]));
        }
      }
      assertThat(lanes.get(p).isReady()).isTrue();
      assertThat(lanes.get(p).installedSequence()).isEqualTo(producers[p].lastSequence());
    }

    /** Every resident canonical hash of a single-block chain is found at depth ≥ 1 on its lane. */
    void assertQueryFindsResidentChains() {
      GlobalCkfQueryResult<Integer> result = indexer.newQueryResult();
      for (int t = 0; t < 40; t++) {
        long h = SequenceHash.root(t);
        assertThat(indexer.query(new long[] {h}, result)).isEqualTo(GlobalCkfQueryStatus.ANSWERED);
        for (int p = 0; p < PRODUCERS; p++) {
          if (producers[p].contains(h)) {
            assertThat(result.prefixDepth(p)).as("lane %d root %d", p, t).isEqualTo(1);
          }
        }
      }
    }
  }
}
