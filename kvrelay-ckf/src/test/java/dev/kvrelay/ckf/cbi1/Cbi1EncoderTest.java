package dev.kvrelay.ckf.cbi1;

import static dev.kvrelay.ckf.cbi1.Cbi1VectorsTest.FIXTURE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1EncodeException.Reason;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** ckf-cbi1.md §6.5 encoder rules. */
class Cbi1EncoderTest {

  static Reason failure(Executable call) {
    Cbi1EncodeException e = catchThrowableOfType(Cbi1EncodeException.class, call::execute);
    assertThat(e).as("encode must fail").isNotNull();
    return e.reason();
  }

  @Test
  void bucketIndexAtOrAboveBIsRejected() {
    assertThat(failure(() -> Cbi1Encoder.encodeDelta(FIXTURE, 1, 0, 1, new int[] {0, 1024}, new long[2], 2)))
        .isEqualTo(Reason.BUCKET_INDEX);
    assertThat(failure(() -> Cbi1Encoder.encodeDelta(FIXTURE, 1, 0, 1, new int[] {Integer.MIN_VALUE}, new long[1], 1)))
        .isEqualTo(Reason.BUCKET_INDEX);
    assertThat(failure(() -> Cbi1Encoder.encodeDelta(FIXTURE, 1, 0, 1, new int[] {-1}, new long[1], 1)))
        .isEqualTo(Reason.BUCKET_INDEX);
  }

  @Test
  void onlyTheFirstCountImagesAreChecked() throws Exception {
    byte[] frame = Cbi1Encoder.encodeDelta(FIXTURE, 1, 0, 1, new int[] {5, 99_999}, new long[] {7, 8}, 1);
    assertThat(frame).isEqualTo(Cbi1Reference.delta(0x5EED, 1024, 1, 0, 1, new int[] {5}, new long[] {7}));
  }

  @Test
  void imageCountMustFitTheArrays() {
    assertThat(failure(() -> Cbi1Encoder.encodeDelta(FIXTURE, 1, 0, 1, new int[1], new long[2], 2)))
        .isEqualTo(Reason.IMAGE_ARRAY_LENGTH);
    assertThat(failure(() -> Cbi1Encoder.encodeDelta(FIXTURE, 1, 0, 1, new int[2], new long[1], 2)))
        .isEqualTo(Reason.IMAGE_ARRAY_LENGTH);
    assertThat(failure(() -> Cbi1Encoder.encodeDelta(FIXTURE, 1, 0, 1, new int[2], new long[2], -1)))
        .isEqualTo(Reason.IMAGE_ARRAY_LENGTH);
  }

  @Test
  void snapshotNeedsExactlyBWords() {
    assertThat(failure(() -> Cbi1Encoder.encodeSnapshot(FIXTURE, 1, 1, new long[1023]))).isEqualTo(Reason.SNAPSHOT_BUCKET_COUNT);
    assertThat(failure(() -> Cbi1Encoder.encodeSnapshot(FIXTURE, 1, 1, new long[1025]))).isEqualTo(Reason.SNAPSHOT_BUCKET_COUNT);
    assertThat(failure(() -> Cbi1Encoder.encodeSnapshotChunk(FIXTURE, 1, 1, new long[0], 0)))
        .isEqualTo(Reason.SNAPSHOT_BUCKET_COUNT);
  }

  @Test
  void chunkIndexMustExist() {
    assertThat(failure(() -> Cbi1Encoder.encodeSnapshotChunk(FIXTURE, 1, 1, new long[1024], 1))).isEqualTo(Reason.CHUNK_INDEX);
    assertThat(failure(() -> Cbi1Encoder.encodeSnapshotChunk(FIXTURE, 1, 1, new long[1024], -1))).isEqualTo(Reason.CHUNK_INDEX);
  }

  @Test
  void outputCapacityIsCheckedBeforeWriting() {
    byte[] dst = new byte[83];
    Arrays.fill(dst, (byte) 1);
    assertThat(failure(() -> Cbi1Encoder.encodeDeltaInto(FIXTURE, 1, 0, 1, new int[2], new long[2], 2, dst, 0)))
        .isEqualTo(Reason.OUTPUT_CAPACITY);
    byte[] big = new byte[100];
    assertThat(failure(() -> Cbi1Encoder.encodeDeltaInto(FIXTURE, 1, 0, 1, new int[2], new long[2], 2, big, 17)))
        .isEqualTo(Reason.OUTPUT_CAPACITY);
    assertThat(failure(() -> Cbi1Encoder.encodeDeltaInto(FIXTURE, 1, 0, 1, new int[2], new long[2], 2, big, -1)))
        .isEqualTo(Reason.OUTPUT_CAPACITY);
    assertThat(failure(() -> Cbi1Encoder.encodeDeltaInto(FIXTURE, 1, 0, 1, new int[2], new long[2], 2, big, 101)))
        .isEqualTo(Reason.OUTPUT_CAPACITY);
    assertThat(failure(() -> Cbi1Encoder.encodeSnapshotChunkInto(FIXTURE, 1, 1, new long[1024], 0, new byte[8255], 0)))
        .isEqualTo(Reason.OUTPUT_CAPACITY);
    byte[] untouched = new byte[83];
    Arrays.fill(untouched, (byte) 1);
    assertThat(dst).isEqualTo(untouched);
  }

  @Test
  void failedEncodeWritesNothing() {
    byte[] dst = new byte[200];
    Arrays.fill(dst, (byte) 3);
    assertThat(failure(() -> Cbi1Encoder.encodeDeltaInto(FIXTURE, 1, 0, 1, new int[] {1, 2000}, new long[2], 2, dst, 0)))
        .isEqualTo(Reason.BUCKET_INDEX);
    byte[] expected = new byte[200];
    Arrays.fill(expected, (byte) 3);
    assertThat(dst).isEqualTo(expected);
  }

  @Test
  void formatIdentityRules() {
    assertThat(failure(() -> Cbi1Encoder.checkFormat(2, 16, 4, 1024))).isEqualTo(Reason.UNSUPPORTED_FORMAT_IDENTITY);
    assertThat(failure(() -> Cbi1Encoder.checkFormat(1, 8, 4, 1024))).isEqualTo(Reason.UNSUPPORTED_FORMAT_IDENTITY);
    assertThat(failure(() -> Cbi1Encoder.checkFormat(1, 16, 2, 1024))).isEqualTo(Reason.UNSUPPORTED_FORMAT_IDENTITY);
    assertThat(failure(() -> Cbi1Encoder.checkFormat(1, 16, 4, 1000))).isEqualTo(Reason.BUCKET_COUNT);
    assertThat(failure(() -> Cbi1Encoder.checkFormat(1, 16, 4, 1))).isEqualTo(Reason.BUCKET_COUNT);
    assertThat(failure(() -> Cbi1Encoder.checkFormat(1, 16, 4, 1L << 25))).isEqualTo(Reason.BUCKET_COUNT);
    assertThat(failure(() -> Cbi1Encoder.checkFormat(1, 16, 4, 0))).isEqualTo(Reason.BUCKET_COUNT);
  }

  @Test
  void formatIdentityAcceptsTheSupportedRange() throws Exception {
    Cbi1Encoder.checkFormat(1, 16, 4, 2);
    Cbi1Encoder.checkFormat(1, 16, 4, 1 << 24);
  }

  @Test
  void fourChunkSnapshotMatchesTheReference() throws Exception {
    int b = 1 << 21;
    long[] words = new long[b];
    java.util.SplittableRandom r = new java.util.SplittableRandom(42);
    for (int i = 0; i < b; i++) {
      words[i] = r.nextLong();
    }
    CkfFormat format = CkfFormat.of(-7L, b);
    List<byte[]> frames = Cbi1Encoder.encodeSnapshot(format, 0xABCDL, 77, words);
    byte[][] reference = Cbi1Reference.snapshot(-7L, b, 0xABCDL, 77, words);
    assertThat(frames).hasSize(4);
    for (int i = 0; i < 4; i++) {
      assertThat(frames.get(i)).as("chunk %d", i).isEqualTo(reference[i]);
    }
    byte[] reused = new byte[Cbi1.MAX_FRAME_BYTES];
    for (int i = 0; i < 4; i++) {
      int n = Cbi1Encoder.encodeSnapshotChunkInto(format, 0xABCDL, 77, words, i, reused, 0);
      assertThat(Arrays.copyOf(reused, n)).as("reused chunk %d", i).isEqualTo(reference[i]);
    }
  }
}
