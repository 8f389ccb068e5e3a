package dev.kvrelay.ckf.cbi1;

import static dev.kvrelay.ckf.cbi1.Cbi1Reference.hex;
import static dev.kvrelay.ckf.cbi1.Cbi1Reference.patched;
import static dev.kvrelay.ckf.cbi1.Cbi1Reference.resealed;
import static dev.kvrelay.ckf.cbi1.Cbi1VectorsTest.DELTA_HEX;
import static dev.kvrelay.ckf.cbi1.Cbi1VectorsTest.FIXTURE;
import static dev.kvrelay.ckf.cbi1.Cbi1VectorsTest.decodeFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException.Reason;
import org.junit.jupiter.api.Test;

/** ckf-cbi1.md §6.6: check order, every body rule, leniency pins. */
class Cbi1DecoderTest {
  static final long SEED = 0x5EED;

  static byte[] delta(int[] buckets, long[] words) {
    return Cbi1Reference.delta(SEED, 1024, 7, 4, 5, buckets, words);
  }

  static byte[] chunk(long index, long count, long offset, int words) {
    return Cbi1Reference.chunk(SEED, 1024, 7, 5, index, count, offset, new long[words]);
  }

  @Test
  void referenceFramesDecode() throws Exception {
    assertThat(Cbi1Decoder.decode(FIXTURE, chunk(0, 1, 0, 1024))).isInstanceOf(Cbi1Frame.SnapshotChunk.class);
    assertThat(Cbi1Decoder.decode(FIXTURE, delta(new int[] {1}, new long[] {2}))).isInstanceOf(Cbi1Frame.Delta.class);
  }

  /** Each frame has two defects; the one the spec checks first must be reported. */
  @Test
  void checksRunInTheSpecOrder() {
    byte[] good = hex(DELTA_HEX);
    byte[] badMagic = patched(good, 0, (byte) 'X');
    byte[] badWire = patched(good, 4, (byte) 2);
    byte[] badBody = patched(good, 60, (byte) 0x7F); // checksum no longer matches
    // Truncated before magic
    assertThat(decodeFailure(FIXTURE, java.util.Arrays.copyOf(badMagic, 40))).isEqualTo(Reason.TRUNCATED);
    // magic before wire version
    assertThat(decodeFailure(FIXTURE, patched(badWire, 0, (byte) 'X'))).isEqualTo(Reason.MAGIC);
    // wire version before checksum
    assertThat(decodeFailure(FIXTURE, patched(badBody, 4, (byte) 2))).isEqualTo(Reason.WIRE_VERSION);
    // checksum before format version, fingerprint bits, slots, seed, bucket count and flags
    assertThat(decodeFailure(FIXTURE, patched(badBody, 10, (byte) 2))).isEqualTo(Reason.CHECKSUM);
    assertThat(decodeFailure(FIXTURE, patched(badBody, 8, (byte) 8))).isEqualTo(Reason.CHECKSUM);
    assertThat(decodeFailure(FIXTURE, patched(badBody, 6, (byte) 9))).isEqualTo(Reason.CHECKSUM);
    // format version before fingerprint bits before slots before seed before bucket count before flags
    byte[] allFormat = patched(patched(patched(patched(patched(patched(good,
        6, (byte) 9), 20, (byte) 1), 12, (byte) 1), 9, (byte) 8), 8, (byte) 8), 10, (byte) 2);
    assertThat(decodeFailure(FIXTURE, allFormat)).isEqualTo(Reason.FORMAT_VERSION);
    byte[] noVersion = patched(allFormat, 10, (byte) 1);
    assertThat(decodeFailure(FIXTURE, noVersion)).isEqualTo(Reason.FORMAT_MISMATCH_FINGERPRINT_BITS);
    byte[] noFp = patched(noVersion, 8, (byte) 16);
    assertThat(decodeFailure(FIXTURE, noFp)).isEqualTo(Reason.FORMAT_MISMATCH_SLOTS_PER_BUCKET);
    byte[] noSlots = patched(noFp, 9, (byte) 4);
    assertThat(decodeFailure(FIXTURE, noSlots)).isEqualTo(Reason.FORMAT_MISMATCH_SEED);
    byte[] noSeed = patched(noSlots, 12, (byte) 0xED);
    assertThat(decodeFailure(FIXTURE, noSeed)).isEqualTo(Reason.FORMAT_MISMATCH_BUCKET_COUNT);
    byte[] noBuckets = patched(noSeed, 20, (byte) 0);
    assertThat(decodeFailure(FIXTURE, noBuckets)).isEqualTo(Reason.FLAGS);
  }

  @Test
  void formatReasonsKeepTheSpecGrouping() {
    assertThat(Reason.FORMAT_VERSION.isFormatMismatch()).isFalse();
    assertThat(Reason.FORMAT_MISMATCH_FINGERPRINT_BITS.isFormatMismatch()).isTrue();
    assertThat(Reason.FORMAT_MISMATCH_SLOTS_PER_BUCKET.isFormatMismatch()).isTrue();
    assertThat(Reason.FORMAT_MISMATCH_SEED.isFormatMismatch()).isTrue();
    assertThat(Reason.FORMAT_MISMATCH_BUCKET_COUNT.isFormatMismatch()).isTrue();
    assertThat(Reason.CHECKSUM.isFormatMismatch()).isFalse();
  }

  @Test
  void bucketCountMismatchAgainstExpectedFormat() {
    assertThat(decodeFailure(CkfFormat.of(SEED, 2048), hex(DELTA_HEX))).isEqualTo(Reason.FORMAT_MISMATCH_BUCKET_COUNT);
    // a header bucket count above 2^32 must not alias to the expected value
    byte[] frame = patched(hex(DELTA_HEX), 24, (byte) 1);
    assertThat(decodeFailure(FIXTURE, frame)).isEqualTo(Reason.FORMAT_MISMATCH_BUCKET_COUNT);
  }

  @Test
  void flagsZeroAndThreeAreFlags() {
    assertThat(decodeFailure(FIXTURE, patched(hex(DELTA_HEX), 6, (byte) 0))).isEqualTo(Reason.FLAGS);
    assertThat(decodeFailure(FIXTURE, patched(hex(DELTA_HEX), 6, (byte) 3))).isEqualTo(Reason.FLAGS);
  }

  @Test
  void deltaBodyRules() {
    // body shorter than 12 bytes
    byte[] shortBody = resealed(java.util.Arrays.copyOf(hex(DELTA_HEX), 48 + 11));
    assertThat(decodeFailure(FIXTURE, shortBody)).isEqualTo(Reason.MALFORMED);
    byte[] emptyBody = resealed(java.util.Arrays.copyOf(hex(DELTA_HEX), 48));
    assertThat(decodeFailure(FIXTURE, emptyBody)).isEqualTo(Reason.MALFORMED);
    // count disagrees with the length, both ways
    byte[] oneMissing = Cbi1Reference.delta(SEED, 1024, 7, 4, 5, 3, new int[] {1, 2}, new long[] {1, 2});
    assertThat(decodeFailure(FIXTURE, oneMissing)).isEqualTo(Reason.MALFORMED);
    byte[] oneExtra = Cbi1Reference.delta(SEED, 1024, 7, 4, 5, 1, new int[] {1, 2}, new long[] {1, 2});
    assertThat(decodeFailure(FIXTURE, oneExtra)).isEqualTo(Reason.MALFORMED);
    // trailing partial image
    byte[] ragged = resealed(java.util.Arrays.copyOf(hex(DELTA_HEX), 84 + 5));
    assertThat(decodeFailure(FIXTURE, ragged)).isEqualTo(Reason.MALFORMED);
    // count u32 max: DeltaImageCount before any allocation
    byte[] huge = Cbi1Reference.delta(SEED, 1024, 7, 4, 5, 0xFFFF_FFFFL, new int[0], new long[0]);
    assertThat(decodeFailure(FIXTURE, huge)).isEqualTo(Reason.DELTA_IMAGE_COUNT);
    // bucket >= B, also u32 values above 2^31
    assertThat(decodeFailure(FIXTURE, delta(new int[] {0, 1024}, new long[] {1, 2}))).isEqualTo(Reason.MALFORMED);
    assertThat(decodeFailure(FIXTURE, delta(new int[] {-1}, new long[] {1}))).isEqualTo(Reason.MALFORMED);
  }

  @Test
  void lastBucketIsAccepted() throws Exception {
    Cbi1Frame.Delta d = (Cbi1Frame.Delta) Cbi1Decoder.decode(FIXTURE, delta(new int[] {1023}, new long[] {-1L}));
    assertThat(d.buckets()).containsExactly(1023);
    assertThat(d.words()).containsExactly(-1L);
  }

  /** Decision "lenient CBI1 vs strict core": duplicates decode, in wire order; the core rejects them. */
  @Test
  void duplicateBucketIndexesDecode_lenientCbi1Decision() throws Exception {
    Cbi1Frame.Delta d = (Cbi1Frame.Delta) Cbi1Decoder.decode(FIXTURE,
        delta(new int[] {5, 3, 5}, new long[] {10, 20, 30}));
    assertThat(d.buckets()).containsExactly(5, 3, 5);
    assertThat(d.words()).containsExactly(10, 20, 30);
  }

  @Test
  void chunkBodyRules() {
    byte[] tooShort = resealed(java.util.Arrays.copyOf(chunk(0, 1, 0, 0), 48 + 15));
    assertThat(decodeFailure(FIXTURE, tooShort)).isEqualTo(Reason.MALFORMED);
    assertThat(decodeFailure(FIXTURE, chunk(0, 0, 0, 4))).isEqualTo(Reason.MALFORMED);
    assertThat(decodeFailure(FIXTURE, chunk(1, 1, 0, 4))).isEqualTo(Reason.MALFORMED);
    assertThat(decodeFailure(FIXTURE, chunk(0xFFFF_FFFFL, 0xFFFF_FFFFL, 0, 4))).isEqualTo(Reason.MALFORMED);
    byte[] ragged = resealed(java.util.Arrays.copyOf(chunk(0, 1, 0, 4), 48 + 16 + 8 * 4 + 3));
    assertThat(decodeFailure(FIXTURE, ragged)).isEqualTo(Reason.MALFORMED);
    // bucket_offset + n > bucket_count, including the u64 overflow case
    assertThat(decodeFailure(FIXTURE, chunk(0, 1, 1, 1024))).isEqualTo(Reason.MALFORMED);
    assertThat(decodeFailure(FIXTURE, chunk(0, 1, 1021, 4))).isEqualTo(Reason.MALFORMED);
    assertThat(decodeFailure(FIXTURE, chunk(0, 1, -1L, 1))).isEqualTo(Reason.MALFORMED);
    assertThat(decodeFailure(FIXTURE, chunk(0, 1, Long.MIN_VALUE, 0))).isEqualTo(Reason.MALFORMED);
    assertThat(decodeFailure(FIXTURE, chunk(0, 1, 0, 1025))).isEqualTo(Reason.MALFORMED);
  }

  /** The decoder does not tie bucket_offset to chunk_index (assembly checks contiguity). */
  @Test
  void chunkOffsetIsNotTiedToIndex() throws Exception {
    Cbi1Frame.SnapshotChunk c = (Cbi1Frame.SnapshotChunk) Cbi1Decoder.decode(FIXTURE, chunk(2, 5, 1020, 4));
    assertThat(c.chunkIndex()).isEqualTo(2);
    assertThat(c.chunkCount()).isEqualTo(5);
    assertThat(c.bucketOffset()).isEqualTo(1020);
    assertThat(c.words()).hasSize(4);
    Cbi1Frame.SnapshotChunk empty = (Cbi1Frame.SnapshotChunk) Cbi1Decoder.decode(FIXTURE, chunk(0, 1, 1024, 0));
    assertThat(empty.words()).isEmpty();
  }

  @Test
  void u32FieldsAreUnsigned() throws Exception {
    Cbi1Frame.SnapshotChunk c = (Cbi1Frame.SnapshotChunk) Cbi1Decoder.decode(FIXTURE,
        chunk(0xFFFF_FFFEL, 0xFFFF_FFFFL, 0, 1));
    assertThat(c.chunkIndex()).isEqualTo(0xFFFF_FFFEL);
    assertThat(c.chunkCount()).isEqualTo(0xFFFF_FFFFL);
  }

  @Test
  void u64HeaderFieldsKeepAllBits() throws Exception {
    byte[] frame = Cbi1Reference.delta(-2L, 1024, -3L, -4L, -5L, new int[0], new long[0]);
    Cbi1Frame.Delta d = (Cbi1Frame.Delta) Cbi1Decoder.decode(CkfFormat.of(-2L, 1024), frame);
    assertThat(d.header()).isEqualTo(new Cbi1Header(-2L, 1024, -3L, -5L));
    assertThat(d.baseEpoch()).isEqualTo(-4L);
  }

  @Test
  void decodesASliceOfALargerArray() throws Exception {
    byte[] frame = hex(DELTA_HEX);
    byte[] big = new byte[frame.length + 20];
    System.arraycopy(frame, 0, big, 10, frame.length);
    assertThat(Cbi1Decoder.decode(FIXTURE, big, 10, frame.length)).isEqualTo(Cbi1Decoder.decode(FIXTURE, frame));
    assertThatThrownBy(() -> Cbi1Decoder.decode(FIXTURE, big, 10, big.length))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
