package dev.kvrelay.ckf.consumer;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.kvrelay.api.CkfFormat;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Not thread-safe by itself (each class is one jcstress state, confined to jcstress's actors): the publication
 * contract of {@link TransposedCkfTable} (ckf-cbi1 §7): opaque words, a ready mask published with release and
 * read with acquire.
 */
public final class ReadyPublicationStress {
  private ReadyPublicationStress() {}

  static TransposedCkfTable table() {
    return TransposedCkfTable.of(CkfFormat.withDefaultSeed(2));
  }

  /**
   * Not thread-safe (a jcstress state): a lane writer stores a snapshot word and publishes the lane; a query
   * that sees the ready bit must see the word.
   */
  @JCStressTest
  @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the lane is not ready yet")
  @Outcome(id = "0, 42", expect = ACCEPTABLE, desc = "the word is stored, the ready bit not yet seen")
  @Outcome(id = "1, 42", expect = ACCEPTABLE, desc = "ready, and the snapshot word is visible")
  @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "ready bit seen before the word it publishes")
  @State
  public static class SnapshotThenReady {
    final TransposedCkfTable table = table();

    @Actor
    public void laneWriter() {
      table.store(1, 3, 42);
      table.publishReady(3);
    }

    @Actor
    public void query(II_Result r) {
      int ready = table.readyLanes();
      r.r1 = (ready >>> 3) & 1;
      r.r2 = (int) table.load(1, 3);
    }
  }

  /** A word with both 32-bit halves set (and distinct per bucket), so a torn load cannot pass for it. */
  static long fullWord(int bucket) {
    return 0x8421_0000_0000_1248L ^ ((long) bucket << 32) ^ bucket;
  }

  /**
   * Not thread-safe (a jcstress state): a lane writer stores a snapshot of four buckets (64-bit words with both
   * halves non-zero) and then publishes the lane; a query loads the mask once (acquire) and then the four words
   * (opaque), as {@link TransposedCkfTable#probe} does. Seeing the ready bit implies seeing the whole snapshot
   * (release/acquire); before the bit any mixture of old (0) and new words is allowed (opaque words, no seqlock:
   * the weak-read contract, ckf-cbi1 §7); no word is ever torn (opaque access is atomic for {@code long}).
   * r1: ready bit seen; r2: words of the new snapshot seen (0..4); r3: torn words (neither 0 nor the new value).
   */
  @JCStressTest
  @Outcome(id = "0, [0-4], 0", expect = ACCEPTABLE, desc = "not ready yet; any mixture of untorn old/new words")
  @Outcome(id = "1, 4, 0", expect = ACCEPTABLE, desc = "ready, and the whole snapshot is visible")
  @Outcome(id = "1, [0-3], 0", expect = FORBIDDEN, desc = "ready bit seen with a half-published snapshot")
  @Outcome(expect = FORBIDDEN, desc = "a torn word")
  @State
  public static class SeveralBucketsThenReady {
    static final int LANE = 5;
    final TransposedCkfTable table = TransposedCkfTable.of(CkfFormat.withDefaultSeed(4));

    @Actor
    public void laneWriter() {
      for (int b = 0; b < 4; b++) {
        table.store(b, LANE, fullWord(b));
      }
      table.publishReady(LANE);
    }

    @Actor
    public void query(III_Result r) {
      int ready = table.readyLanes();
      int fresh = 0;
      int torn = 0;
      for (int b = 0; b < 4; b++) {
        long w = table.load(b, LANE);
        if (w == fullWord(b)) {
          fresh++;
        } else if (w != 0) {
          torn++;
        }
      }
      r.r1 = (ready >>> LANE) & 1;
      r.r2 = fresh;
      r.r3 = torn;
    }
  }

  /** Not thread-safe (a jcstress state): two lanes' writers publish at once; neither bit is lost. */
  @JCStressTest
  @Outcome(id = "3", expect = ACCEPTABLE, desc = "both lanes ready")
  @Outcome(expect = FORBIDDEN, desc = "a concurrent publication lost a ready bit")
  @State
  public static class TwoLanesPublishAtOnce {
    final TransposedCkfTable table = table();

    @Actor
    public void lane0() {
      table.publishReady(0);
    }

    @Actor
    public void lane1() {
      table.publishReady(1);
    }

    @Arbiter
    public void mask(I_Result r) {
      r.r1 = table.readyLanes();
    }
  }

  /**
   * Not thread-safe (a jcstress state): a lane is retired (its ready bit cleared with a volatile
   * read-modify-write) and its next snapshot written, while the writer of another lane publishes that lane and
   * then queries lane 3 as a query does (mask once with acquire, then the word).
   *
   * <p>All four (ready bit, word) pairs are legal. {@code 1, 99} in particular is not a reordering: the query
   * loads the mask before the retirement and the word after the rewrite, an ordinary interleaving. The
   * weak-read contract allows it (ckf-cbi1 §7: a query captures the mask once and never retries, so it may
   * finish against a lane retired meanwhile, exactly as it may see a delta half applied); the lane still
   * belongs to the same pool (the manifest is immutable) and carries words of the same format, so the answer
   * stays advisory, never attributed to another pool. What is forbidden is a lost mask update: retirement
   * and the other lane's publication are concurrent read-modify-writes of one mask, and both must survive.
   */
  @JCStressTest
  @Outcome(id = "1, 42, 1", expect = ACCEPTABLE, desc = "query ran before the retirement")
  @Outcome(id = "0, 42, 1", expect = ACCEPTABLE, desc = "retired, the new word not loaded yet")
  @Outcome(id = "0, 99, 1", expect = ACCEPTABLE, desc = "retired and rewritten")
  @Outcome(id = "1, 99, 1", expect = ACCEPTABLE,
      desc = "mask loaded before the retirement, word after the rewrite (an interleaving; weak read allowed)")
  @Outcome(expect = FORBIDDEN, desc = "the retirement or lane 0's publication was lost from the mask")
  @State
  public static class RetireThenRewrite {
    final TransposedCkfTable table = table();

    {
      table.store(1, 3, 42);
      table.publishReady(3);
    }

    @Actor
    public void laneWriter() {
      table.retireReady(3);
      table.store(1, 3, 99);
    }

    @Actor
    public void otherLaneWriterThenQuery(III_Result r) {
      table.publishReady(0);
      int ready = table.readyLanes();
      r.r1 = (ready >>> 3) & 1;
      r.r2 = (int) table.load(1, 3);
    }

    @Arbiter
    public void mask(III_Result r) {
      r.r3 = table.readyLanes();
    }
  }
}
