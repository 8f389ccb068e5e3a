package dev.kvrelay.engine.consumer;

import static dev.kvrelay.engine.consumer.ReplicaFixture.FORMAT;
import static dev.kvrelay.engine.consumer.ReplicaFixture.LANE_A;
import static dev.kvrelay.engine.consumer.ReplicaFixture.LANE_B;
import static dev.kvrelay.engine.consumer.ReplicaFixture.MAX_AGE_US;
import static dev.kvrelay.engine.consumer.ReplicaFixture.PRODUCER_A;
import static dev.kvrelay.engine.consumer.ReplicaFixture.PRODUCER_B;
import static dev.kvrelay.engine.consumer.ReplicaFixture.RELAY;
import static dev.kvrelay.engine.consumer.ReplicaFixture.deltaFrame;
import static dev.kvrelay.engine.consumer.ReplicaFixture.heartbeat;
import static dev.kvrelay.engine.consumer.ReplicaFixture.lease;
import static dev.kvrelay.engine.consumer.ReplicaFixture.snapshotFrames;
import static dev.kvrelay.engine.consumer.ReplicaFixture.withKind;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.engine.consumer.PoolReplica.Outcome;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.List;
import org.junit.jupiter.api.Test;

/** wan-grpc.md §7.2 and §7.4, one test (or group) per step, fed with real CBI1 frames from a CkfProducer. */
class PoolReplicaTest {

  private final ReplicaFixture fx = new ReplicaFixture();

  private static PoolFrame envelope(PoolFrame f, int version, long marker, RelayIdentity relay,
      ProducerIdentity producer) {
    return new PoolFrame(version, marker, relay, producer, f.baseSequence(), f.sequence(), f.sendTsUs(),
        f.kindNumber(), f.payload());
  }

  private void assertInvalidated(PoolReplica.FrameResult r, ReplicaTermination reason) {
    assertThat(r.outcome()).isEqualTo(Outcome.INVALIDATED);
    assertThat(r.termination()).isEqualTo(reason);
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.INVALIDATED);
    assertThat(fx.replicaA.termination()).isEqualTo(reason);
    assertThat(fx.ready(LANE_A)).isFalse();
  }

  // ---------------------------------------------------------------- step 1

  @Test
  void step1BindUsesTheCatalogProducerAndStartsSyncing() {
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.UNBOUND);
    assertThat(fx.replicaA.bind(PRODUCER_A, lease(LANE_A, 1), RELAY, 5)).isEqualTo(LaneAssignmentResult.ASSIGNED);
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.SYNCING);
    assertThat(fx.replicaA.expectedProducer()).isSameAs(PRODUCER_A);
    assertThat(fx.replicaA.sessionGeneration()).isEqualTo(1);
    assertThat(fx.replicaA.isUsable(5)).isFalse();
  }

  @Test
  void step1BindWithAnotherFormatIsRefusedWithoutStateChange() {
    ProducerIdentity other = new ProducerIdentity(PRODUCER_A.poolId(), 7, 11, CkfFormat.of(0x5EEDL, 512));
    assertThat(fx.replicaA.bind(other, lease(LANE_A, 1), null, 0)).isEqualTo(LaneAssignmentResult.WRONG_FORMAT);
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.UNBOUND);
    assertThat(fx.replicaA.sessionGeneration()).isZero();
  }

  @Test
  void step1BindOfAnotherPoolOrStaleEpochIsRefused() {
    assertThat(fx.replicaA.bind(PRODUCER_B, lease(LANE_A, 1), null, 0))
        .isEqualTo(LaneAssignmentResult.WRONG_LANE_OWNER);
    fx.installA();
    assertThat(fx.replicaA.bind(PRODUCER_A, lease(LANE_A, 1), null, 0))
        .isEqualTo(LaneAssignmentResult.STALE_ASSIGNMENT_EPOCH);
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.LIVE);
    assertThat(fx.ready(LANE_A)).isTrue();
  }

  // ---------------------------------------------------------------- step 2 / §7.2

  @Test
  void step2MarkerIsCheckedBeforeVersionAndMeansStop() {
    fx.bindA(1);
    PoolFrame f = snapshotFrames(fx.producerA, PRODUCER_A, 1).get(0);
    var r = fx.replicaA.apply(envelope(f, 2, 0x4B565232L, RELAY, PRODUCER_A), 1);
    assertInvalidated(r, ReplicaTermination.CONTRACT_MISMATCH);
    assertThat(r.termination().action()).isEqualTo(ReplicaTermination.Action.STOP);
  }

  @Test
  void step2ProtocolVersionMismatchMeansStop() {
    fx.bindA(1);
    PoolFrame f = snapshotFrames(fx.producerA, PRODUCER_A, 1).get(0);
    var r = fx.replicaA.apply(envelope(f, 2, 0x4B565231L, RELAY, PRODUCER_A), 1);
    assertInvalidated(r, ReplicaTermination.PROTOCOL_VERSION_MISMATCH);
    assertThat(r.termination().action()).isEqualTo(ReplicaTermination.Action.STOP);
  }

  @Test
  void step2MissingRelayOrProducerInvalidates() {
    fx.bindA(1);
    PoolFrame f = snapshotFrames(fx.producerA, PRODUCER_A, 1).get(0);
    assertInvalidated(fx.replicaA.apply(new PoolFrame(1, 0x4B565231L, null, PRODUCER_A, 0, 0, 0, 1,
        f.payload()), 1), ReplicaTermination.RELAY_MISSING);
    fx.bindA(2);
    assertInvalidated(fx.replicaA.apply(new PoolFrame(1, 0x4B565231L, RELAY, null, 0, 0, 0, 1,
        f.payload()), 1), ReplicaTermination.PRODUCER_MISSING);
  }

  @Test
  void step2RelayChangeWithinTheEpochMeansReconnect() {
    fx.installA();
    PoolFrame hb = heartbeat(PRODUCER_A, fx.replicaA.installedSequence());
    var r = fx.replicaA.apply(envelope(hb, 1, 0x4B565231L, new RelayIdentity(0x1111L, 0x3333L), PRODUCER_A), 20);
    assertInvalidated(r, ReplicaTermination.RELAY_CHANGED);
    assertThat(r.termination().action()).isEqualTo(ReplicaTermination.Action.RECONNECT);
  }

  @Test
  void step2RelayGivenAtBindIsPinned() {
    RelayIdentity pinned = new RelayIdentity(9, 9);
    fx.replicaA.bind(PRODUCER_A, lease(LANE_A, 1), pinned, 0);
    var r = fx.replicaA.apply(snapshotFrames(fx.producerA, PRODUCER_A, 1).get(0), 1);
    assertInvalidated(r, ReplicaTermination.RELAY_CHANGED);
  }

  @Test
  void step2ProducerKeyDriftInAnyDimensionInvalidates() {
    fx.installA();
    long s = fx.replicaA.installedSequence();
    ProducerIdentity drifted = new ProducerIdentity(PRODUCER_A.poolId(), PRODUCER_A.producerIncarnation(),
        PRODUCER_A.layoutGeneration() + 1, PRODUCER_A.ckfFormat());
    assertInvalidated(fx.replicaA.apply(heartbeat(drifted, s), 20), ReplicaTermination.IDENTITY_DRIFT);
    fx.bindA(2);
    ProducerIdentity otherIncarnation = new ProducerIdentity(PRODUCER_A.poolId(), 8, 11, FORMAT);
    assertInvalidated(fx.replicaA.apply(snapshotFrames(fx.producerA, otherIncarnation, 2).get(0), 20),
        ReplicaTermination.IDENTITY_DRIFT);
  }

  // ---------------------------------------------------------------- step 3

  @Test
  void step3SnapshotInstallsTheProducerWordsAtItsSequence() {
    fx.bindA(1);
    fx.store(fx.producerA, 20);
    List<PoolFrame> frames = snapshotFrames(fx.producerA, PRODUCER_A, 1);
    assertThat(frames).hasSize(1);
    var r = fx.replicaA.apply(frames.get(0), 10);
    assertThat(r.outcome()).isEqualTo(Outcome.SNAPSHOT_INSTALLED);
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.LIVE);
    assertThat(fx.replicaA.installedSequence()).isEqualTo(frames.get(0).sequence());
    assertThat(fx.laneWords(LANE_A)).containsExactly(fx.producerA.copyWords());
    assertThat(fx.replicaA.isUsable(10)).isTrue();
  }

  @Test
  void step3ChunkWithBaseOtherThanSequenceInvalidates() {
    fx.bindA(1);
    fx.store(fx.producerA, 3);
    PoolFrame f = snapshotFrames(fx.producerA, PRODUCER_A, 1).get(0);
    PoolFrame bad = new PoolFrame(1, 0x4B565231L, RELAY, PRODUCER_A, f.sequence() + 1, f.sequence(), 0, 1,
        f.payload());
    assertInvalidated(fx.replicaA.apply(bad, 1), ReplicaTermination.ENVELOPE_MISMATCH);
  }

  @Test
  void step3HeaderDcIdMustBeTheProducerDcId() {
    fx.bindA(1);
    fx.store(fx.producerA, 3);
    // pool B's dc id in the CBI1 header, pool A's identity in the envelope
    PoolFrame fromB = snapshotFrames(fx.producerA, PRODUCER_B, 1).get(0);
    PoolFrame bad = envelope(fromB, 1, 0x4B565231L, RELAY, PRODUCER_A);
    assertInvalidated(fx.replicaA.apply(bad, 1), ReplicaTermination.ENVELOPE_MISMATCH);
  }

  @Test
  void step3HeaderEpochMustBeTheSequence() {
    fx.bindA(1);
    PoolFrame f = snapshotFrames(fx.producerA, PRODUCER_A, 1).get(0);
    PoolFrame bad = new PoolFrame(1, 0x4B565231L, RELAY, PRODUCER_A, 5, 5, 0, 1, f.payload());
    assertInvalidated(fx.replicaA.apply(bad, 1), ReplicaTermination.ENVELOPE_MISMATCH);
  }

  @Test
  void step3SnapshotKindCarryingADeltaInvalidates() {
    fx.bindA(1);
    byte[] delta = ReplicaFixture.encodeDelta(PRODUCER_A, 0, 0, new int[] {1}, new long[] {7});
    PoolFrame bad = PoolFrame.of(RELAY, PRODUCER_A, 0, 0, 0, PoolFrame.Kind.SNAPSHOT_CHUNK, delta);
    assertInvalidated(fx.replicaA.apply(bad, 1), ReplicaTermination.ENVELOPE_MISMATCH);
  }

  // ---------------------------------------------------------------- step 4

  @Test
  void step4DeltaAppliesTheProducerImages() {
    fx.installA();
    fx.store(fx.producerA, 7);
    PoolFrame d = deltaFrame(fx.producerA, PRODUCER_A);
    var r = fx.replicaA.apply(d, 20);
    assertThat(r.outcome()).isEqualTo(Outcome.DELTA_APPLIED);
    assertThat(fx.replicaA.installedSequence()).isEqualTo(d.sequence());
    assertThat(fx.laneWords(LANE_A)).containsExactly(fx.producerA.copyWords());
  }

  @Test
  void step4DeltaBeforeTheSnapshotIsAGap() {
    fx.bindA(1);
    fx.store(fx.producerA, 3);
    snapshotFrames(fx.producerA, PRODUCER_A, 1); // not delivered
    fx.store(fx.producerA, 3);
    assertInvalidated(fx.replicaA.apply(deltaFrame(fx.producerA, PRODUCER_A), 1), ReplicaTermination.GAP);
  }

  @Test
  void step4MissingDeltaIsAGap() {
    fx.installA();
    fx.store(fx.producerA, 3);
    deltaFrame(fx.producerA, PRODUCER_A); // lost
    fx.store(fx.producerA, 3);
    assertInvalidated(fx.replicaA.apply(deltaFrame(fx.producerA, PRODUCER_A), 20), ReplicaTermination.GAP);
  }

  @Test
  void step4SequenceMustBeBasePlusOne() {
    fx.installA();
    long s = fx.replicaA.installedSequence();
    byte[] p = ReplicaFixture.encodeDelta(PRODUCER_A, s, s + 2, new int[] {1}, new long[] {7});
    PoolFrame bad = PoolFrame.of(RELAY, PRODUCER_A, s, s + 2, 0, PoolFrame.Kind.DELTA, p);
    assertInvalidated(fx.replicaA.apply(bad, 20), ReplicaTermination.GAP);
  }

  @Test
  void step4BodyBaseEpochMustBeTheEnvelopeBase() {
    fx.installA();
    long s = fx.replicaA.installedSequence();
    byte[] p = ReplicaFixture.encodeDelta(PRODUCER_A, s + 7, s + 1, new int[] {1}, new long[] {7});
    PoolFrame bad = PoolFrame.of(RELAY, PRODUCER_A, s, s + 1, 0, PoolFrame.Kind.DELTA, p);
    assertInvalidated(fx.replicaA.apply(bad, 20), ReplicaTermination.ENVELOPE_MISMATCH);
  }

  @Test
  void step4DuplicateImageIndexIsRejectedByTheLane() {
    fx.installA();
    long s = fx.replicaA.installedSequence();
    byte[] p = ReplicaFixture.encodeDelta(PRODUCER_A, s, s + 1, new int[] {4, 4}, new long[] {1, 2});
    var r = fx.replicaA.apply(PoolFrame.of(RELAY, PRODUCER_A, s, s + 1, 0, PoolFrame.Kind.DELTA, p), 20);
    assertInvalidated(r, ReplicaTermination.LANE_REJECTED);
  }

  @Test
  void step4DeltaKindCarryingASnapshotInvalidates() {
    fx.installA();
    PoolFrame chunk = snapshotFrames(fx.producerA, PRODUCER_A, 2).get(0);
    assertInvalidated(fx.replicaA.apply(withKind(chunk, 2), 20), ReplicaTermination.ENVELOPE_MISMATCH);
  }

  // ---------------------------------------------------------------- step 5

  @Test
  void step5HeartbeatRefreshesFreshness() {
    fx.installA();
    long s = fx.replicaA.installedSequence();
    assertThat(fx.replicaA.isUsable(10 + MAX_AGE_US)).isTrue();
    assertThat(fx.replicaA.isUsable(11 + MAX_AGE_US)).isFalse();
    assertThat(fx.replicaA.apply(heartbeat(PRODUCER_A, s), 2_000_000).outcome())
        .isEqualTo(Outcome.HEARTBEAT_CONFIRMED);
    assertThat(fx.replicaA.isUsable(2_000_000 + MAX_AGE_US)).isTrue();
    assertThat(fx.replicaA.lastActivityUs()).isEqualTo(2_000_000);
  }

  @Test
  void step5HeartbeatBeforeTheSnapshotIsAGap() {
    fx.bindA(1);
    assertInvalidated(fx.replicaA.apply(heartbeat(PRODUCER_A, 0), 1), ReplicaTermination.GAP);
  }

  @Test
  void step5HeartbeatAtAnotherSequenceIsAGap() {
    fx.installA();
    long s = fx.replicaA.installedSequence();
    assertInvalidated(fx.replicaA.apply(heartbeat(PRODUCER_A, s + 1), 20), ReplicaTermination.GAP);
  }

  @Test
  void step5HeartbeatWithPayloadOrBaseMismatchInvalidates() {
    fx.installA();
    long s = fx.replicaA.installedSequence();
    PoolFrame withPayload = PoolFrame.of(RELAY, PRODUCER_A, s, s, 0, PoolFrame.Kind.HEARTBEAT, new byte[1]);
    assertInvalidated(fx.replicaA.apply(withPayload, 20), ReplicaTermination.ENVELOPE_MISMATCH);
  }

  // ---------------------------------------------------------------- step 6

  @Test
  void step6UnspecifiedKindInvalidates() {
    fx.installA();
    var hb = heartbeat(PRODUCER_A, fx.replicaA.installedSequence());
    assertInvalidated(fx.replicaA.apply(withKind(hb, 0), 20), ReplicaTermination.UNSPECIFIED_KIND);
  }

  @Test
  void step6UnknownKindInvalidates() {
    fx.installA();
    var hb = heartbeat(PRODUCER_A, fx.replicaA.installedSequence());
    assertInvalidated(fx.replicaA.apply(withKind(hb, 4), 20), ReplicaTermination.UNKNOWN_KIND);
    assertThat(PoolFrame.Kind.of(-7)).isEqualTo(PoolFrame.Kind.UNKNOWN);
  }

  @Test
  void step6DecodeFailureInvalidates() {
    fx.bindA(1);
    PoolFrame f = snapshotFrames(fx.producerA, PRODUCER_A, 1).get(0);
    byte[] corrupted = f.payload().clone();
    corrupted[60] ^= 1; // a body byte: the checksum no longer matches
    var r = fx.replicaA.apply(envelope(new PoolFrame(1, 0x4B565231L, RELAY, PRODUCER_A, f.baseSequence(),
        f.sequence(), 0, 1, corrupted), 1, 0x4B565231L, RELAY, PRODUCER_A), 1);
    assertInvalidated(r, ReplicaTermination.DECODE_FAILED);
    assertThat(r.feed()).isNotNull();
    assertThat(r.feed().decodeError()).isNotNull();
  }

  @Test
  void step6TruncatedPayloadIsATypedDecodeFailure() {
    fx.bindA(1);
    PoolFrame bad = PoolFrame.of(RELAY, PRODUCER_A, 0, 0, 0, PoolFrame.Kind.SNAPSHOT_CHUNK, new byte[5]);
    assertInvalidated(fx.replicaA.apply(bad, 1), ReplicaTermination.DECODE_FAILED);
  }

  @Test
  void step6CleanEndOfStreamInvalidates() {
    fx.installA();
    var r = fx.replicaA.endOfStream();
    assertInvalidated(r, ReplicaTermination.END_OF_STREAM);
    assertThat(fx.replicaA.isUsable(10)).isFalse();
  }

  @Test
  void step6InvalidatedReplicaRefusesFramesWithoutStateChangeUntilRebound() {
    fx.installA();
    long[] before = fx.laneWords(LANE_A);
    fx.replicaA.drop();
    fx.store(fx.producerA, 4);
    var r = fx.replicaA.apply(deltaFrame(fx.producerA, PRODUCER_A), 30);
    assertThat(r.outcome()).isEqualTo(Outcome.REFUSED);
    assertThat(r.termination()).isEqualTo(ReplicaTermination.DROPPED);
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.INVALIDATED);
    assertThat(fx.laneWords(LANE_A)).containsExactly(before);
    assertThat(fx.replicaA.endOfStream().outcome()).isEqualTo(Outcome.REFUSED);
    // a new lease re-binds; the new stream's snapshot installs
    fx.bindA(2);
    for (PoolFrame f : snapshotFrames(fx.producerA, PRODUCER_A, 2)) {
      fx.replicaA.apply(f, 40);
    }
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.LIVE);
    assertThat(fx.laneWords(LANE_A)).containsExactly(fx.producerA.copyWords());
  }

  @Test
  void step6UnboundReplicaRefusesFrames() {
    var r = fx.replicaA.apply(heartbeat(PRODUCER_A, 0), 1);
    assertThat(r.outcome()).isEqualTo(Outcome.REFUSED);
    assertThat(r.termination()).isNull();
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.UNBOUND);
  }

  @Test
  void step6FailureInvalidatesOnlyThisReplica() {
    fx.installA();
    fx.installB();
    long[] wordsB = fx.laneWords(LANE_B);
    var hb = heartbeat(PRODUCER_A, fx.replicaA.installedSequence());
    assertInvalidated(fx.replicaA.apply(withKind(hb, 9), 20), ReplicaTermination.UNKNOWN_KIND);
    assertThat(fx.replicaB.state()).isEqualTo(ReplicaState.LIVE);
    assertThat(fx.ready(LANE_B)).isTrue();
    assertThat(fx.laneWords(LANE_B)).containsExactly(wordsB);
  }

  // ---------------------------------------------------------------- step 7

  @Test
  void step7StaleReplicaExpiresAfterMaxAge() {
    fx.installA();
    assertThat(fx.replicaA.expireIfStale(10 + MAX_AGE_US)).isNull();
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.LIVE);
    var r = fx.replicaA.expireIfStale(11 + MAX_AGE_US);
    assertThat(r).isNotNull();
    assertInvalidated(r, ReplicaTermination.STALE);
  }

  @Test
  void step7SnapshotThatDoesNotProgressExpires() {
    fx.bindA(1);
    assertThat(fx.replicaA.expireIfStale(MAX_AGE_US + 1)).isNotNull();
    assertThat(fx.replicaA.termination()).isEqualTo(ReplicaTermination.STALE);
  }

  @Test
  void step7NewerSessionFencesTheOlderOne() {
    fx.installA();
    fx.bindA(2);
    assertThat(fx.replicaA.sessionGeneration()).isEqualTo(2);
    assertThat(fx.replicaA.state()).isEqualTo(ReplicaState.SYNCING);
    assertThat(fx.ready(LANE_A)).isFalse();
    assertThat(fx.replicaA.isUsable(10)).isFalse();
  }

  @Test
  void step7LeaseTakenByAnotherSessionFencesThisReplicaAndLeavesTheLaneAlone() {
    fx.installA();
    PoolReplica newer = new PoolReplica(fx.laneA, MAX_AGE_US);
    assertThat(newer.bind(PRODUCER_A, lease(LANE_A, 5), null, 0)).isEqualTo(LaneAssignmentResult.ASSIGNED);
    for (PoolFrame f : snapshotFrames(fx.producerA, PRODUCER_A, 5)) {
      newer.apply(f, 10);
    }
    assertThat(newer.state()).isEqualTo(ReplicaState.LIVE);
    assertThat(fx.replicaA.isUsable(10)).isFalse();
    var hb = heartbeat(PRODUCER_A, newer.installedSequence());
    var r = fx.replicaA.apply(hb, 20);
    assertThat(r.termination()).isIn(ReplicaTermination.LEASE_LOST, ReplicaTermination.GAP);
    assertThat(newer.state()).isEqualTo(ReplicaState.LIVE);
    assertThat(fx.ready(LANE_A)).isTrue();
  }

  // ---------------------------------------------------------------- decisions

  /** Decision (wan-grpc.md §2.5, "sequence restart after idle eviction"): follow — install a new stream's first snapshot at S = 0. */
  @Test
  void decisionSequenceRestartInstallsTheNewStreamsFirstSnapshotAtZero() {
    fx.installA();
    for (int i = 0; i < 3; i++) {
      fx.store(fx.producerA, 2);
      fx.replicaA.apply(deltaFrame(fx.producerA, PRODUCER_A), 20);
    }
    assertThat(fx.replicaA.installedSequence()).isGreaterThan(0);
    fx.replicaA.endOfStream();
    var restarted = ReplicaFixture.newProducer(); // the hub re-initialized: sequences restart at 0
    fx.store(restarted, 9);
    fx.bindA(2);
    List<PoolFrame> frames = snapshotFrames(restarted, PRODUCER_A, 1);
    assertThat(frames.get(0).sequence()).isZero();
    assertThat(fx.replicaA.apply(frames.get(0), 30).outcome()).isEqualTo(Outcome.SNAPSHOT_INSTALLED);
    assertThat(fx.replicaA.installedSequence()).isZero();
    assertThat(fx.laneWords(LANE_A)).containsExactly(restarted.copyWords());
  }
}
