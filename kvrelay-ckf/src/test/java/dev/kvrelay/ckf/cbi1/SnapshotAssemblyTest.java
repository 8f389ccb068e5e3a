package dev.kvrelay.ckf.cbi1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException.Reason;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** ckf-cbi1.md §6.6 "Snapshot assembly". */
class SnapshotAssemblyTest {
  static final int B = 1 << 20;
  static final int HALF = 524_288;
  static final CkfFormat FORMAT = CkfFormat.of(0x5EED, B);
  static long[] first;
  static long[] second;

  @BeforeAll
  static void words() {
    first = new long[HALF];
    second = new long[HALF];
    for (int i = 0; i < HALF; i++) {
      first[i] = i * 3L + 1;
      second[i] = -i - 1L;
    }
  }

  static Cbi1Frame.SnapshotChunk chunk(long epoch, long index, long count, long offset, long[] words) {
    return new Cbi1Frame.SnapshotChunk(new Cbi1Header(0x5EED, B, 9, epoch), index, count, offset, words);
  }

  static Cbi1Frame.SnapshotChunk c0(long epoch) {
    return chunk(epoch, 0, 2, 0, first);
  }

  static Cbi1Frame.SnapshotChunk c1(long epoch) {
    return chunk(epoch, 1, 2, HALF, second);
  }

  static long[] concat(long[] a, long[] b) {
    long[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  static Reason failure(SnapshotAssembly a, Cbi1Frame f) {
    Cbi1DecodeException e = catchThrowableOfType(Cbi1DecodeException.class, () -> a.accept(f));
    assertThat(e).as("accept must fail").isNotNull();
    assertThat(a.inProgress()).as("a failure resets the assembly").isFalse();
    return e.reason();
  }

  @Test
  void inOrderChunksComplete() throws Exception {
    SnapshotAssembly a = new SnapshotAssembly(FORMAT);
    assertThat(a.accept(c0(6))).isEmpty();
    assertThat(a.inProgress()).isTrue();
    assertThat(a.nextChunk()).isEqualTo(1);
    assertThat(a.nextBucket()).isEqualTo(HALF);
    Optional<AssembledSnapshot> done = a.accept(c1(6));
    assertThat(done).contains(new AssembledSnapshot(6, concat(first, second)));
    assertThat(a.inProgress()).isFalse();
  }

  @Test
  void deltaIsChunkSequenceAndResets() throws Exception {
    SnapshotAssembly a = new SnapshotAssembly(FORMAT);
    Cbi1Frame.Delta delta = new Cbi1Frame.Delta(new Cbi1Header(0x5EED, B, 9, 7), 6, new int[0], new long[0]);
    assertThat(failure(a, delta)).isEqualTo(Reason.CHUNK_SEQUENCE);
    a.accept(c0(6));
    assertThat(failure(a, delta)).isEqualTo(Reason.CHUNK_SEQUENCE);
    // progress is gone: chunk 1 alone no longer completes
    assertThat(failure(a, c1(6))).isEqualTo(Reason.CHUNK_SEQUENCE);
  }

  @Test
  void chunkZeroRestartsAnUnfinishedAssembly() throws Exception {
    SnapshotAssembly a = new SnapshotAssembly(FORMAT);
    a.accept(c0(6));
    a.accept(chunk(8, 0, 2, 0, second));
    assertThat(a.accept(c1(8))).contains(new AssembledSnapshot(8, concat(second, second)));
  }

  @Test
  void everyMismatchIsChunkSequenceAndDropsProgress() throws Exception {
    Cbi1Frame.SnapshotChunk[] bad = {
      chunk(6, 1, 3, HALF, second), // chunk count differs
      chunk(7, 1, 2, HALF, second), // epoch differs
      chunk(6, 1, 2, HALF - 1, second), // offset not contiguous
      chunk(6, 1, 2, HALF + 1, new long[HALF - 1]), // offset not contiguous
      new Cbi1Frame.SnapshotChunk(new Cbi1Header(0x5EED, B / 2, 9, 6), 1, 2, HALF, second), // B differs
    };
    for (Cbi1Frame.SnapshotChunk b : bad) {
      SnapshotAssembly a = new SnapshotAssembly(FORMAT);
      a.accept(c0(6));
      assertThat(failure(a, b)).as("%s", b).isEqualTo(Reason.CHUNK_SEQUENCE);
      assertThat(failure(a, c1(6))).as("after %s", b).isEqualTo(Reason.CHUNK_SEQUENCE);
      a.accept(c0(6));
      assertThat(a.accept(c1(6))).as("recovers after %s", b).isPresent();
    }
  }

  @Test
  void repeatedOrSkippedIndexIsChunkSequence() throws Exception {
    SnapshotAssembly a = new SnapshotAssembly(CkfFormat.of(0x5EED, 1 << 21));
    Cbi1Frame.SnapshotChunk c0 = new Cbi1Frame.SnapshotChunk(new Cbi1Header(0x5EED, 1 << 21, 9, 6), 0, 4, 0, first);
    Cbi1Frame.SnapshotChunk c2 = new Cbi1Frame.SnapshotChunk(new Cbi1Header(0x5EED, 1 << 21, 9, 6), 2, 4, HALF, first);
    a.accept(c0);
    assertThat(failure(a, c2)).isEqualTo(Reason.CHUNK_SEQUENCE);
  }

  @Test
  void chunkZeroWithNonZeroOffsetIsChunkSequence() {
    SnapshotAssembly a = new SnapshotAssembly(FORMAT);
    assertThat(failure(a, chunk(6, 0, 2, 1, new long[0]))).isEqualTo(Reason.CHUNK_SEQUENCE);
  }

  @Test
  void shortCoverageIsIncompleteCoverage() throws Exception {
    SnapshotAssembly a = new SnapshotAssembly(FORMAT);
    a.accept(c0(6));
    assertThat(failure(a, chunk(6, 1, 2, HALF, new long[HALF - 1]))).isEqualTo(Reason.INCOMPLETE_COVERAGE);
    // as frames: a single-chunk snapshot for B = 1024 carrying only 1000 words
    CkfFormat small = CkfFormat.of(0x5EED, 1024);
    SnapshotAssembly b = new SnapshotAssembly(small);
    byte[] frame = Cbi1Reference.chunk(0x5EED, 1024, 9, 6, 0, 1, 0, new long[1000]);
    assertThatThrownBy(() -> b.accept(frame)).isInstanceOfSatisfying(Cbi1DecodeException.class,
        e -> assertThat(e.reason()).isEqualTo(Reason.INCOMPLETE_COVERAGE));
  }

  @Test
  void wordsBeyondBAreRejectedNotWritten() throws Exception {
    CkfFormat small = CkfFormat.of(0x5EED, 1024);
    SnapshotAssembly a = new SnapshotAssembly(small);
    Cbi1Frame.SnapshotChunk tooMany = new Cbi1Frame.SnapshotChunk(
        new Cbi1Header(0x5EED, 1024, 9, 6), 0, 1, 0, new long[1025]);
    assertThat(failure(a, tooMany)).isEqualTo(Reason.CHUNK_SEQUENCE);
  }

  @Test
  void aDecodeFailureResetsProgressAndKeepsItsReason() throws Exception {
    SnapshotAssembly a = new SnapshotAssembly(FORMAT);
    a.accept(Cbi1Encoder.encodeSnapshotChunk(FORMAT, 9, 6, concat(first, second), 0));
    assertThatThrownBy(() -> a.accept(new byte[47])).isInstanceOfSatisfying(Cbi1DecodeException.class,
        e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED));
    assertThat(a.inProgress()).isFalse();
    assertThat(failure(a, c1(6))).isEqualTo(Reason.CHUNK_SEQUENCE);
  }

  @Test
  void aBadArrayRangeLeavesTheAssemblyUnchanged() throws Exception {
    SnapshotAssembly a = new SnapshotAssembly(FORMAT);
    a.accept(c0(6));
    assertThatThrownBy(() -> a.accept(new byte[10], 5, 10)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(a.inProgress()).isTrue();
    assertThat(a.accept(c1(6))).isPresent();
  }

  @Test
  void aCompletedSnapshotIsNeverWrittenAgain() throws Exception {
    SnapshotAssembly a = new SnapshotAssembly(FORMAT);
    a.accept(c0(6));
    AssembledSnapshot done = a.accept(c1(6)).orElseThrow();
    long[] expected = concat(first, second);
    // a new snapshot, a failure, a restart: none may touch the handed-over table
    a.accept(chunk(7, 0, 2, 0, second));
    failure(a, chunk(7, 1, 2, 0, first));
    a.accept(chunk(8, 0, 2, 0, second));
    AssembledSnapshot next = a.accept(chunk(8, 1, 2, HALF, first)).orElseThrow();
    assertThat(done.words()).isEqualTo(expected);
    assertThat(next.words()).isEqualTo(concat(second, first));
    assertThat(next.words()).isNotSameAs(done.words());
  }

  @Test
  void sparseImagesListNonZeroWordsInBucketOrder() {
    AssembledSnapshot s = new AssembledSnapshot(3, new long[] {0, 5, 0, -1});
    assertThat(s.nonZeroImages()).isEqualTo(new BucketImages(new int[] {1, 3}, new long[] {5, -1}));
    assertThat(s.bucketCount()).isEqualTo(4);
  }
}
