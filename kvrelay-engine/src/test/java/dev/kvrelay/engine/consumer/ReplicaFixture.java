package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.consumer.CkfLaneOwner;
import dev.kvrelay.ckf.consumer.GlobalCkfIndexer;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.GlobalCkfManifest;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Two pools on one Global CKF: pool A (dc 41) on lane 3 and pool B (dc 42) on lane 5, B = 256. Each pool
 * has a real {@link CkfProducer}; frames are CBI1-encoded with {@link Cbi1Encoder}.
 */
final class ReplicaFixture {
  static final long CONSUMER = 17;
  static final CkfFormat FORMAT = CkfFormat.of(0x5EEDL, 256);
  static final int LANE_A = 3;
  static final int LANE_B = 5;
  static final long MAX_AGE_US = 3_000_000;
  static final RelayIdentity RELAY = new RelayIdentity(0x1111L, 0x2222L);
  static final ProducerIdentity PRODUCER_A = producer(41, (byte) 1);
  static final ProducerIdentity PRODUCER_B = producer(42, (byte) 2);

  final GlobalCkfIndexer<KvPoolId> indexer;
  final GlobalCkfLaneIngestor<KvPoolId> laneA;
  final GlobalCkfLaneIngestor<KvPoolId> laneB;
  final PoolReplica replicaA;
  final PoolReplica replicaB;
  final CkfProducer producerA = newProducer();
  final CkfProducer producerB = newProducer();
  private long nextHash = 1;

  ReplicaFixture() {
    try {
      List<CkfLaneOwner<KvPoolId>> owners = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        owners.add(null);
      }
      owners.set(LANE_A, new CkfLaneOwner<>(PRODUCER_A.poolId(), 41));
      owners.set(LANE_B, new CkfLaneOwner<>(PRODUCER_B.poolId(), 42));
      indexer = GlobalCkfIndexer.create(GlobalCkfManifest.of(CONSUMER, FORMAT, owners));
      laneA = indexer.claimLane(LANE_A);
      laneB = indexer.claimLane(LANE_B);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    replicaA = new PoolReplica(laneA, MAX_AGE_US);
    replicaB = new PoolReplica(laneB, MAX_AGE_US);
  }

  static ProducerIdentity producer(long dc, byte tag) {
    byte[] a = new byte[16];
    byte[] b = new byte[16];
    Arrays.fill(a, tag);
    Arrays.fill(b, (byte) (tag + 100));
    KvPoolId pool = new KvPoolId(new IndexerDomainId(new DigestIdentity(a, IdentitySource.EXPLICIT),
        new DigestIdentity(b, IdentitySource.EXPLICIT)), DcId.of(dc));
    return new ProducerIdentity(pool, 7, 11, FORMAT);
  }

  static CkfProducer newProducer() {
    try {
      return CkfProducer.create(CkfProducerConfig.of(FORMAT, 500, 1));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static LaneLease lease(int lane, long epoch) {
    return new LaneLease(CONSUMER, lane, epoch);
  }

  void bindA(long epoch) {
    assertThat(replicaA.bind(PRODUCER_A, lease(LANE_A, epoch), null, 0)).isEqualTo(LaneAssignmentResult.ASSIGNED);
  }

  void bindB(long epoch) {
    assertThat(replicaB.bind(PRODUCER_B, lease(LANE_B, epoch), null, 0)).isEqualTo(LaneAssignmentResult.ASSIGNED);
  }

  /** Stores {@code n} fresh blocks (one event) in {@code producer}. */
  void store(CkfProducer producer, int n) {
    StoredBatch batch = new StoredBatch().reset(1, 0);
    for (int i = 0; i < n; i++) {
      long h = nextHash++ * 0x9E37_79B9_7F4A_7C15L;
      batch.addBlock(h, h ^ 0x55);
    }
    producer.stored(batch);
  }

  /** A barrier snapshot of {@code producer} as SNAPSHOT_CHUNK frames (the tail, if any, is discarded). */
  static List<PoolFrame> snapshotFrames(CkfProducer producer, ProducerIdentity identity, long streamLease) {
    try {
      BarrierSnapshot barrier = producer.snapshotAfterBarrier(streamLease);
      long s = barrier.snapshot().sequence();
      List<PoolFrame> frames = new ArrayList<>();
      for (byte[] chunk : Cbi1Encoder.encodeSnapshot(FORMAT, identity.poolId().dcId().value(), s,
          barrier.snapshot().words())) {
        frames.add(PoolFrame.of(RELAY, identity, s, s, 1, PoolFrame.Kind.SNAPSHOT_CHUNK, chunk));
      }
      return frames;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Drains {@code producer}; returns the DELTA frame (asserts a delta was published). */
  static PoolFrame deltaFrame(CkfProducer producer, ProducerIdentity identity) {
    CkfPublication p = producer.drain();
    assertThat(p).isInstanceOf(CkfDelta.class);
    CkfDelta d = (CkfDelta) p;
    return PoolFrame.of(RELAY, identity, d.baseSequence(), d.sequence(), 2, PoolFrame.Kind.DELTA,
        encodeDelta(identity, d.baseSequence(), d.sequence(), d.buckets(), d.words()));
  }

  static byte[] encodeDelta(ProducerIdentity identity, long base, long seq, int[] buckets, long[] words) {
    try {
      return Cbi1Encoder.encodeDelta(FORMAT, identity.poolId().dcId().value(), base, seq, buckets, words,
          buckets.length);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static PoolFrame heartbeat(ProducerIdentity identity, long seq) {
    return PoolFrame.of(RELAY, identity, seq, seq, 3, PoolFrame.Kind.HEARTBEAT, new byte[0]);
  }

  static PoolFrame withKind(PoolFrame f, int kind) {
    return new PoolFrame(f.protocolVersion(), f.contractMarker(), f.relay(), f.producer(), f.baseSequence(),
        f.sequence(), f.sendTsUs(), kind, f.payload());
  }

  long[] laneWords(int lane) {
    long[] out = new long[FORMAT.bucketCount()];
    for (int i = 0; i < out.length; i++) {
      out[i] = indexer.table().load(i, lane);
    }
    return out;
  }

  boolean ready(int lane) {
    return (indexer.readyLanes() & (1 << lane)) != 0;
  }

  /** Binds A, stores a few blocks, installs a snapshot and returns the frames used. */
  void installA() {
    bindA(1);
    store(producerA, 5);
    for (PoolFrame f : snapshotFrames(producerA, PRODUCER_A, 1)) {
      replicaA.apply(f, 10);
    }
    assertThat(replicaA.state()).isEqualTo(ReplicaState.LIVE);
  }

  void installB() {
    bindB(1);
    store(producerB, 5);
    for (PoolFrame f : snapshotFrames(producerB, PRODUCER_B, 1)) {
      replicaB.apply(f, 10);
    }
    assertThat(replicaB.state()).isEqualTo(ReplicaState.LIVE);
  }
}
