package dev.kvrelay.ckf.cbi1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.CkfFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Random feeds into one {@link SnapshotAssembly}, checked against the declarative rule of §6.6: a feed
 * completes a snapshot exactly when it ends a run that starts with chunk 0 and continues with the
 * consecutive indexes, same count, epoch and B, and contiguous offsets, covering B buckets; any
 * earlier failure or chunk 0 breaks the run. Completed tables are never written afterwards.
 */
class SnapshotAssemblyProperties {
  static final int HALF = 524_288;
  static final int B = 4 * HALF;
  static final CkfFormat FORMAT = CkfFormat.of(0x5EED, B);

  /** Snapshots P (epoch 6), Q (epoch 7), R (epoch 6, other words), as decoded chunks. */
  static final List<Cbi1Frame.SnapshotChunk[]> SNAPSHOTS = new ArrayList<>();
  /** Odd items: wrong count, wrong B, a short last chunk, a delta, undecodable bytes. */
  static final List<Object> ODD = new ArrayList<>();

  @BeforeAll
  static void build() throws Exception {
    SplittableRandom r = new SplittableRandom(1);
    long[] epochs = {6, 7, 6};
    for (long epoch : epochs) {
      long[] words = new long[B];
      for (int i = 0; i < B; i++) {
        words[i] = r.nextLong();
      }
      List<byte[]> frames = Cbi1Encoder.encodeSnapshot(FORMAT, 9, epoch, words);
      Cbi1Frame.SnapshotChunk[] chunks = new Cbi1Frame.SnapshotChunk[frames.size()];
      for (int i = 0; i < chunks.length; i++) {
        chunks[i] = (Cbi1Frame.SnapshotChunk) Cbi1Decoder.decode(FORMAT, frames.get(i));
      }
      SNAPSHOTS.add(chunks);
    }
    Cbi1Frame.SnapshotChunk p1 = SNAPSHOTS.get(0)[1];
    ODD.add(new Cbi1Frame.SnapshotChunk(p1.header(), 1, 5, HALF, p1.words()));
    ODD.add(new Cbi1Frame.SnapshotChunk(new Cbi1Header(0x5EED, B / 2, 9, 6), 1, 4, HALF, p1.words()));
    ODD.add(new Cbi1Frame.SnapshotChunk(new Cbi1Header(0x5EED, B, 9, 6), 3, 4, 3L * HALF, new long[10]));
    ODD.add(new Cbi1Frame.Delta(new Cbi1Header(0x5EED, B, 9, 7), 6, new int[] {1}, new long[] {1}));
    ODD.add(new byte[47]);
    ODD.add(Cbi1Reference.delta(0x5EED, B, 9, 6, 7, new int[] {B}, new long[] {1}));
  }

  /** Runs of "chunks 0..k of one snapshot", interleaved with odd items. */
  static List<Object> feeds(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<Object> out = new ArrayList<>();
    int runs = 1 + r.nextInt(6);
    for (int run = 0; run < runs; run++) {
      if (r.nextInt(3) == 0) {
        out.add(ODD.get(r.nextInt(ODD.size())));
      }
      Cbi1Frame.SnapshotChunk[] s = SNAPSHOTS.get(r.nextInt(SNAPSHOTS.size()));
      int start = r.nextInt(4) == 0 ? r.nextInt(4) : 0;
      int end = r.nextInt(3) == 0 ? start + r.nextInt(4 - start) : 3;
      for (int i = start; i <= end; i++) {
        // occasionally switch to the same index of another snapshot mid-run
        out.add(r.nextInt(8) == 0 ? SNAPSHOTS.get(r.nextInt(SNAPSHOTS.size()))[i] : s[i]);
      }
    }
    return out;
  }

  /** What the rule says feed {@code i} yields: a table, "empty" (null table, ok), or a failure. */
  record Expected(boolean fails, long @org.jspecify.annotations.Nullable [] table, long epoch) {}

  static Expected expect(List<Object> feeds, int i) {
    // the run that feed i would extend starts at the latest chunk 0 at or before i
    int j = i;
    while (j >= 0 && !(feeds.get(j) instanceof Cbi1Frame.SnapshotChunk c && c.chunkIndex() == 0)) {
      j--;
    }
    if (j < 0) {
      return new Expected(true, null, 0);
    }
    Cbi1Frame.SnapshotChunk head = (Cbi1Frame.SnapshotChunk) feeds.get(j);
    long covered = 0;
    for (int k = j; k <= i; k++) {
      if (!(feeds.get(k) instanceof Cbi1Frame.SnapshotChunk c)
          || c.chunkIndex() != k - j
          || c.chunkCount() != head.chunkCount()
          || c.epoch() != head.epoch()
          || c.header().bucketCount() != B
          || c.bucketOffset() != covered
          || covered + c.words().length > B
          || (k < i && k - j + 1 == head.chunkCount())) { // the run completed (or failed) earlier
        return new Expected(true, null, 0);
      }
      covered += c.words().length;
    }
    if (i - j + 1 < head.chunkCount()) {
      return new Expected(false, null, 0);
    }
    if (covered != B) {
      return new Expected(true, null, 0);
    }
    long[] table = new long[B];
    for (int k = j; k <= i; k++) {
      Cbi1Frame.SnapshotChunk c = (Cbi1Frame.SnapshotChunk) feeds.get(k);
      System.arraycopy(c.words(), 0, table, (int) c.bucketOffset(), c.words().length);
    }
    return new Expected(false, table, head.epoch());
  }

  @Test
  void randomFeedsFollowTheRuleAndNeverCorruptResults() {
    qt().withExamples(60).forAll(longs().all()).checkAssert(seed -> {
      List<Object> feeds = feeds(seed);
      SnapshotAssembly a = new SnapshotAssembly(FORMAT);
      List<AssembledSnapshot> results = new ArrayList<>();
      List<long[]> expectedTables = new ArrayList<>();
      for (int i = 0; i < feeds.size(); i++) {
        Expected want = expect(feeds, i);
        Object item = feeds.get(i);
        Optional<AssembledSnapshot> got;
        try {
          got = item instanceof byte[] bytes ? a.accept(bytes) : a.accept((Cbi1Frame) item);
        } catch (Cbi1DecodeException e) {
          assertThat(want.fails()).as("feed %d failed with %s", i, e.reason()).isTrue();
          assertThat(a.inProgress()).isFalse();
          continue;
        }
        assertThat(want.fails()).as("feed %d should fail", i).isFalse();
        if (want.table() == null) {
          assertThat(got).as("feed %d", i).isEmpty();
          assertThat(a.inProgress()).isTrue();
        } else {
          assertThat(got).as("feed %d", i).isPresent();
          assertThat(got.get().epoch()).isEqualTo(want.epoch());
          assertThat(Arrays.equals(got.get().words(), want.table())).as("feed %d table", i).isTrue();
          results.add(got.get());
          expectedTables.add(want.table());
        }
      }
      for (int k = 0; k < results.size(); k++) {
        assertThat(Arrays.equals(results.get(k).words(), expectedTables.get(k))).as("result %d intact", k).isTrue();
      }
    });
  }
}
