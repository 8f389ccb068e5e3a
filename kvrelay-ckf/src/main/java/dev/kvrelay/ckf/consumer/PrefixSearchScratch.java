package dev.kvrelay.ckf.consumer;

/**
 * Not thread-safe: reusable working memory and result of one {@link PrefixDepthSearch} at a time, owned
 * by the searching thread. All arrays are sized once (16 lanes), so a search through a scratch allocates
 * nothing.
 */
public final class PrefixSearchScratch {
  static final int LANES = TransposedCkfTable.LANES;
  /** Class slots: at most 16 classes (each holds at least one lane). */
  static final int CLASS_SLOTS = LANES;
  /** End of the class list. */
  static final int NO_CLASS = -1;

  final int[] depths = new int[LANES];
  /**
   * Interval classes: disjoint lane sets sharing (lower, predecessor, upper). Their intervals
   * {@code (lower, upper]} are disjoint, and {@link #classNext} links them in ascending order (head: class 0).
   */
  final int[] classLanes = new int[CLASS_SLOTS];
  final int[] classLower = new int[CLASS_SLOTS];
  final int[] classPred = new int[CLASS_SLOTS];
  final int[] classUpper = new int[CLASS_SLOTS];
  final int[] classNext = new int[CLASS_SLOTS];
  int classCount;
  /** Per lane: its class after bisection (read only by the fallback). */
  final int[] classOfLane = new int[LANES];
  final int[] fallbackNext = new int[LANES];
  final int[] fallbackEnd = new int[LANES];
  /** The membership oracle of the running search. */
  final QueryProbes probes = new QueryProbes();

  int leftEdgeLanes;
  int fallbackActivatedLanes;
  int fallbackProbeCalls;
  int fallbackLaneProbes;
  int provenanceSkips;

  /** A fresh scratch with all depths 0. */
  public PrefixSearchScratch() {}

  void reset() {
    java.util.Arrays.fill(depths, 0);
    classCount = 0;
    leftEdgeLanes = 0;
    fallbackActivatedLanes = 0;
    fallbackProbeCalls = 0;
    fallbackLaneProbes = 0;
    provenanceSkips = 0;
  }

  /** Prefix depth of {@code lane} (0..15) found by the last search; 0 for lanes outside its mask. */
  public int depth(int lane) {
    return depths[lane];
  }

  /** Copies the 16 depths of the last search into {@code out[0..16)}. */
  public void copyDepths(int[] out) {
    System.arraycopy(depths, 0, out, 0, LANES);
  }

  /** Number of lanes whose first verification miss sat at the window's left edge in the last search. */
  public int leftEdgeLanes() {
    return leftEdgeLanes;
  }

  /** Number of lanes that actually ran a fallback scan in the last search. */
  public int fallbackActivatedLanes() {
    return fallbackActivatedLanes;
  }

  /** Probe calls made by the fallback scan of the last search. */
  public int fallbackProbeCalls() {
    return fallbackProbeCalls;
  }

  /** Lane probes (sum of participating lanes over fallback probe calls) of the last search. */
  public int fallbackLaneProbes() {
    return fallbackLaneProbes;
  }

  /** Number of left-edge lanes whose fallback was skipped because the predecessor lay inside the window. */
  public int provenanceSkips() {
    return provenanceSkips;
  }
}
