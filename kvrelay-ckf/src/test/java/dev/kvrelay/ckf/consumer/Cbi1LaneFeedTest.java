package dev.kvrelay.ckf.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.consumer.Cbi1LaneFeed.FeedResult;
import dev.kvrelay.ckf.consumer.Cbi1LaneFeed.Kind;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The consumer envelope checks of ckf-cbi1.md §6.6 between CBI1 decoding and the lane. */
class Cbi1LaneFeedTest {
  private static final long CONSUMER = 5;
  private static final long DC = 0x0123_4567_89AB_CDEFL;
  private static final CkfFormat FORMAT = CkfFormat.withDefaultSeed(1024);
  private static final LaneLease LEASE = new LaneLease(CONSUMER, 0, 1);

  private GlobalCkfIndexer<String> indexer;
  private GlobalCkfLaneIngestor<String> lane;
  private Cbi1LaneFeed<String> feed;
  private long[] words;

  @BeforeEach
  void setUp() throws Exception {
    indexer = GlobalCkfIndexer.create(GlobalCkfManifest.of(CONSUMER, FORMAT, List.of(new CkfLaneOwner<>("pool", DC))));
    lane = indexer.claimLane(0);
    assertThat(lane.assign("pool", FORMAT, LEASE)).isEqualTo(LaneAssignmentResult.ASSIGNED);
    feed = new Cbi1LaneFeed<>(lane, "pool", DC, LEASE, FORMAT);
    words = new long[1024];
    words[3] = 0x0001_ABCD_0000_1234L;
    words[1000] = 42;
  }

  private void installSnapshotAt(long seq) throws Exception {
    byte[] chunk = Cbi1Encoder.encodeSnapshotChunk(FORMAT, DC, seq, words, 0);
    assertThat(feed.snapshotChunk(seq, seq, chunk).kind()).isEqualTo(Kind.SNAPSHOT_INSTALLED);
  }

  private byte[] delta(long dc, long base, long seq, int bucket, long word) throws Exception {
    return Cbi1Encoder.encodeDelta(FORMAT, dc, base, seq, new int[] {bucket}, new long[] {word}, 1);
  }

  @Test
  void snapshotThenDeltaThenHeartbeatApplyInOrder() throws Exception {
    installSnapshotAt(7);
    assertThat(indexer.table().load(3, 0)).isEqualTo(words[3]);
    FeedResult r = feed.delta(7, 8, delta(DC, 7, 8, 3, 0x77));
    assertThat(r.kind()).isEqualTo(Kind.DELTA_APPLIED);
    assertThat(r.endsStream()).isFalse();
    assertThat(indexer.table().load(3, 0)).isEqualTo(0x77);
    assertThat(feed.heartbeat(8, 8, new byte[0]).kind()).isEqualTo(Kind.HEARTBEAT_CONFIRMED);
  }

  @Test
  void chunkWhoseEnvelopeBaseDiffersFromSequenceEndsTheStream() throws Exception {
    byte[] chunk = Cbi1Encoder.encodeSnapshotChunk(FORMAT, DC, 7, words, 0);
    FeedResult r = feed.snapshotChunk(6, 7, chunk);
    assertThat(r.kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
    assertThat(r.endsStream()).isTrue();
    assertThat(lane.isReady()).isFalse();
  }

  @Test
  void headerDcIdMustEqualTheProducers() throws Exception {
    byte[] chunk = Cbi1Encoder.encodeSnapshotChunk(FORMAT, DC ^ 1, 7, words, 0);
    assertThat(feed.snapshotChunk(7, 7, chunk).kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
    installSnapshotAt(7);
    long before = indexer.table().load(3, 0);
    assertThat(feed.delta(7, 8, delta(DC ^ 1, 7, 8, 3, 0x77)).kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
    assertThat(indexer.table().load(3, 0)).isEqualTo(before);
  }

  @Test
  void headerEpochMustEqualTheEnvelopeSequence() throws Exception {
    byte[] chunk = Cbi1Encoder.encodeSnapshotChunk(FORMAT, DC, 9, words, 0);
    assertThat(feed.snapshotChunk(7, 7, chunk).kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
    installSnapshotAt(7);
    assertThat(feed.delta(7, 8, delta(DC, 7, 9, 3, 0x77)).kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
  }

  @Test
  void deltaBaseEpochMustEqualTheEnvelopeBase() throws Exception {
    installSnapshotAt(7);
    FeedResult r = feed.delta(7, 8, delta(DC, 6, 8, 3, 0x77));
    assertThat(r.kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
    assertThat(indexer.table().load(3, 0)).isEqualTo(words[3]);
  }

  @Test
  void heartbeatRules() throws Exception {
    installSnapshotAt(7);
    assertThat(feed.heartbeat(7, 7, new byte[1]).kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
    assertThat(feed.heartbeat(6, 7, new byte[0]).kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
    FeedResult behind = feed.heartbeat(8, 8, new byte[0]);
    assertThat(behind.kind()).isEqualTo(Kind.LANE_REJECTED);
    assertThat(behind.laneOutcome()).isEqualTo(LaneIngestOutcome.TERMINAL_SEQUENCE_MISMATCH);
    assertThat(lane.isReady()).isFalse();
  }

  @Test
  void corruptPayloadIsADecodeFailureThatChangesNothing() throws Exception {
    installSnapshotAt(7);
    byte[] frame = delta(DC, 7, 8, 3, 0x77);
    frame[frame.length - 1] ^= 1;
    FeedResult r = feed.delta(7, 8, frame);
    assertThat(r.kind()).isEqualTo(Kind.DECODE_FAILED);
    assertThat(r.decodeError()).isEqualTo(Cbi1DecodeException.Reason.CHECKSUM);
    assertThat(r.endsStream()).isTrue();
    assertThat(indexer.table().load(3, 0)).isEqualTo(words[3]);
  }

  @Test
  void payloadOfTheWrongKindIsAnEnvelopeMismatch() throws Exception {
    installSnapshotAt(7);
    byte[] chunk = Cbi1Encoder.encodeSnapshotChunk(FORMAT, DC, 8, words, 0);
    assertThat(feed.delta(7, 8, chunk).kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
    assertThat(feed.snapshotChunk(8, 8, delta(DC, 8, 8, 1, 1)).kind()).isEqualTo(Kind.ENVELOPE_MISMATCH);
  }

  @Test
  void deltaBeforeAnySnapshotIsRejectedByTheLane() throws Exception {
    FeedResult r = feed.delta(0, 1, delta(DC, 0, 1, 3, 0x77));
    assertThat(r.kind()).isEqualTo(Kind.LANE_REJECTED);
    assertThat(r.laneOutcome()).isEqualTo(LaneIngestOutcome.AWAITING_SNAPSHOT);
  }

  @Test
  void duplicateImagesDecodeButTheLaneRejectsThem() throws Exception {
    installSnapshotAt(7);
    byte[] dup = Cbi1Encoder.encodeDelta(FORMAT, DC, 7, 8, new int[] {3, 3}, new long[] {1, 2}, 2);
    FeedResult r = feed.delta(7, 8, dup);
    assertThat(r.kind()).isEqualTo(Kind.LANE_REJECTED);
    assertThat(r.laneOutcome()).isEqualTo(LaneIngestOutcome.DUPLICATE_IMAGE_INDEX);
    assertThat(indexer.table().load(3, 0)).isEqualTo(words[3]);
  }

  @Test
  void multiChunkSnapshotInstallsOnlyWhenComplete() throws Exception {
    CkfFormat big = CkfFormat.withDefaultSeed(1 << 20);
    GlobalCkfIndexer<String> bigIndexer =
        GlobalCkfIndexer.create(GlobalCkfManifest.of(CONSUMER, big, List.of(new CkfLaneOwner<>("pool", DC))));
    GlobalCkfLaneIngestor<String> bigLane = bigIndexer.claimLane(0);
    bigLane.assign("pool", big, LEASE);
    Cbi1LaneFeed<String> bigFeed = new Cbi1LaneFeed<>(bigLane, "pool", DC, LEASE, big);
    long[] table = new long[1 << 20];
    Arrays.fill(table, 0x0001_0002_0003_0004L);
    List<byte[]> chunks = Cbi1Encoder.encodeSnapshot(big, DC, 3, table);
    assertThat(chunks).hasSize(2);
    assertThat(bigFeed.snapshotChunk(3, 3, chunks.get(0)).kind()).isEqualTo(Kind.CHUNK_ACCEPTED);
    assertThat(bigLane.isReady()).isFalse();
    // a delta in the middle of a snapshot ends the stream
    assertThat(bigFeed.delta(3, 4, Cbi1Encoder.encodeDelta(big, DC, 3, 4, new int[] {1}, new long[] {1}, 1)).kind())
        .isEqualTo(Kind.ENVELOPE_MISMATCH);
    assertThat(bigFeed.snapshotChunk(3, 3, chunks.get(0)).kind()).isEqualTo(Kind.CHUNK_ACCEPTED);
    assertThat(bigFeed.snapshotChunk(3, 3, chunks.get(1)).kind()).isEqualTo(Kind.SNAPSHOT_INSTALLED);
    assertThat(bigIndexer.table().load((1 << 20) - 1, 0)).isEqualTo(0x0001_0002_0003_0004L);
  }
}
