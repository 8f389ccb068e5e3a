package dev.kvrelay.ckf.consumer;

/**
 * Stateless and thread-safe: the grouped prefix-depth search {@code find_prefix_depths<16>} of
 * ckf-cbi1.md §7. Per lane, the depth is the first position whose element is missing, found by galloping
 * (positions 1, 2, 4, …), a bisection in which lanes with equal midpoints share one probe, a verification
 * window of W positions below the found bound, and a linear fallback scan when the first verification miss
 * sits at the window's left edge (skipped when the last lower bound's predecessor lies inside the window).
 *
 * <p>The search is bounded and advisory: with capacity holes outside the examined positions it may
 * over-report. When every lane's present positions form a true prefix, the result is exact.
 */
public final class PrefixDepthSearch {
  /** Default verification window W. */
  public static final int DEFAULT_VERIFICATION_WINDOW = 2;
  /** Largest verification window W (the smallest is 1). */
  public static final int MAX_VERIFICATION_WINDOW = 8;

  private PrefixDepthSearch() {}

  /** True if {@code window} is a valid verification window ({@code 1..=8}). */
  public static boolean isValidVerificationWindow(int window) {
    return window >= 1 && window <= MAX_VERIFICATION_WINDOW;
  }

  /**
   * Runs the search over positions {@code [0, n)} for the lanes of {@code readyMask}; results land in
   * {@code scratch} ({@link PrefixSearchScratch#depth(int)}). Lanes outside the mask, and lanes that miss
   * position 0, get depth 0. Allocates nothing.
   *
   * @throws IllegalArgumentException if {@code n < 0} or the window is outside {@code 1..=8}
   *     (caller bugs: both come from configuration, never from the wire)
   */
  public static void find(int n, int readyMask, int window, LaneProbe probe, PrefixSearchScratch scratch) {
    if (n < 0) {
      throw new IllegalArgumentException("sequence length must be >= 0, got " + n);
    }
    if (!isValidVerificationWindow(window)) {
      throw new IllegalArgumentException("verification window must be in 1..=8, got " + window);
    }
    scratch.reset();
    int configured = readyMask & TransposedCkfTable.ALL_LANES;
    if (n == 0 || configured == 0) {
      return;
    }
    int active = configured & probe.probe(0, configured);
    if (active == 0) {
      return;
    }
    gallop(n, active, probe, scratch);
    bisect(probe, scratch);
    int fallbackLanes = verify(active, window, probe, scratch);
    fallback(fallbackLanes, probe, scratch);
  }

  /**
   * Galloping. All lanes still sampling share one (lower, predecessor) pair, so the lanes that miss at a
   * position form one interval class; the lanes that never miss form the last class with upper = n.
   */
  private static void gallop(int n, int active, LaneProbe probe, PrefixSearchScratch s) {
    int classes = 0;
    int lower = 0;
    int pred = 0;
    int sampling = active;
    int position = 1;
    while (position < n && sampling != 0) {
      int hits = sampling & probe.probe(position, sampling);
      int misses = sampling & ~hits;
      if (misses != 0) {
        classes = addClass(s, classes, misses, lower, pred, position);
      }
      if (hits != 0) {
        pred = lower;
        lower = position;
      }
      sampling = hits;
      if (position > Integer.MAX_VALUE / 2) {
        break;
      }
      position <<= 1;
    }
    if (sampling != 0) {
      classes = addClass(s, classes, sampling, lower, pred, n);
    }
    s.classCount = classes;
  }

  /**
   * Bisection, one level per round. Every lane with {@code upper − lower > 1} proposes its midpoint and
   * lanes with equal midpoints share one probe, in the order of their lowest lane. Lanes proposing the
   * same midpoint always have the same (lower, upper, predecessor): their intervals are nodes at the same
   * depth of the same halving tree, so distinct intervals are disjoint and have distinct midpoints. The
   * search therefore keeps lanes in interval classes, splitting a class into its hit and miss lanes.
   */
  private static void bisect(LaneProbe probe, PrefixSearchScratch s) {
    int[] lanes = s.classLanes;
    int[] lower = s.classLower;
    int[] pred = s.classPred;
    int[] upper = s.classUpper;
    int[] classOf = s.classOfLane;
    for (int c = 0; c < s.classCount; c++) {
      for (int bits = lanes[c]; bits != 0; bits &= bits - 1) {
        classOf[Integer.numberOfTrailingZeros(bits)] = c;
      }
    }
    while (true) {
      int proposing = 0;
      for (int c = 0; c < s.classCount; c++) {
        if (upper[c] - lower[c] > 1) {
          proposing |= lanes[c];
        }
      }
      if (proposing == 0) {
        return;
      }
      // Visit the proposing classes in the order of their lowest lane, each exactly once this level.
      while (proposing != 0) {
        int c = classOf[Integer.numberOfTrailingZeros(proposing)];
        int members = lanes[c];
        proposing &= ~members;
        int mid = lower[c] + ((upper[c] - lower[c]) >>> 1);
        int hits = members & probe.probe(mid, members);
        int misses = members & ~hits;
        if (hits == 0) {
          upper[c] = mid;
        } else if (misses == 0) {
          pred[c] = lower[c];
          lower[c] = mid;
        } else {
          int split = s.classCount;
          s.classCount = addClass(s, split, hits, mid, lower[c], upper[c]);
          for (int bits = hits; bits != 0; bits &= bits - 1) {
            classOf[Integer.numberOfTrailingZeros(bits)] = split;
          }
          lanes[c] = misses;
          upper[c] = mid;
        }
      }
    }
  }

  private static int addClass(PrefixSearchScratch s, int count, int lanes, int lower, int pred, int upper) {
    s.classLanes[count] = lanes;
    s.classLower[count] = lower;
    s.classPred[count] = pred;
    s.classUpper[count] = upper;
    return count + 1;
  }

  /**
   * Sets depths from the bounds, probes each lane's window {@code [max(0, upper − W), upper)} in ascending
   * position order with the lanes sharing a position grouped, and returns the lanes marked for fallback.
   * With the classes sorted by upper bound, window starts and ends are both sorted, so the lanes covering
   * a position are the classes in an index range that only moves forward.
   */
  private static int verify(int active, int window, LaneProbe probe, PrefixSearchScratch s) {
    int[] depths = s.depths;
    int[] start = s.verificationStart;
    int[] lanePred = s.lowerPredecessor;
    int count = s.classCount;
    sortClassesByUpper(s);
    int[] lanes = s.classLanes;
    int[] upper = s.classUpper;
    int[] from = s.classWindowStart;
    for (int c = 0; c < count; c++) {
      int bound = upper[c];
      from[c] = Math.max(0, bound - window);
      for (int bits = lanes[c]; bits != 0; bits &= bits - 1) {
        int lane = Integer.numberOfTrailingZeros(bits);
        depths[lane] = bound;
        start[lane] = from[c];
        lanePred[lane] = s.classPred[c];
      }
    }

    int verifying = active;
    int fallbackLanes = 0;
    int first = 0; // first class whose window ends after the position
    int last = 0; // first class whose window starts after the position
    int position = count == 0 ? 0 : from[0];
    while (first < count) {
      while (first < count && upper[first] <= position) {
        first++;
      }
      if (first == count) {
        break;
      }
      if (from[first] > position) {
        position = from[first];
      }
      while (last < count && from[last] <= position) {
        last++;
      }
      int covering = 0;
      for (int c = first; c < last; c++) {
        covering |= lanes[c];
      }
      int participants = covering & verifying;
      if (participants != 0) {
        int misses = participants & ~probe.probe(position, participants);
        for (int bits = misses; bits != 0; bits &= bits - 1) {
          int lane = Integer.numberOfTrailingZeros(bits);
          depths[lane] = position;
          if (position == start[lane]) {
            fallbackLanes |= 1 << lane;
          }
        }
        verifying &= ~misses;
      }
      position++;
    }
    s.leftEdgeLanes = Integer.bitCount(fallbackLanes);
    return fallbackLanes;
  }

  /** Insertion sort of the (at most 16) classes by upper bound. */
  private static void sortClassesByUpper(PrefixSearchScratch s) {
    int[] lanes = s.classLanes;
    int[] lower = s.classLower;
    int[] pred = s.classPred;
    int[] upper = s.classUpper;
    for (int i = 1; i < s.classCount; i++) {
      int l = lanes[i];
      int lo = lower[i];
      int pr = pred[i];
      int up = upper[i];
      int j = i - 1;
      while (j >= 0 && upper[j] > up) {
        lanes[j + 1] = lanes[j];
        lower[j + 1] = lower[j];
        pred[j + 1] = pred[j];
        upper[j + 1] = upper[j];
        j--;
      }
      lanes[j + 1] = l;
      lower[j + 1] = lo;
      pred[j + 1] = pr;
      upper[j + 1] = up;
    }
  }

  private static void fallback(int marked, LaneProbe probe, PrefixSearchScratch s) {
    int[] depths = s.depths;
    int[] pred = s.lowerPredecessor;
    int[] start = s.verificationStart;
    int[] next = s.fallbackNext;
    int[] end = s.fallbackEnd;
    int scanning = marked;
    for (int bits = marked; bits != 0; bits &= bits - 1) {
      int lane = Integer.numberOfTrailingZeros(bits);
      int windowStart = start[lane];
      if (pred[lane] >= windowStart) {
        s.provenanceSkips++;
        scanning &= ~(1 << lane);
      } else if (pred[lane] + 1 == windowStart) {
        scanning &= ~(1 << lane);
      } else {
        next[lane] = pred[lane] + 1;
        end[lane] = windowStart;
      }
    }
    s.fallbackActivatedLanes = Integer.bitCount(scanning);

    while (scanning != 0) {
      int position = Integer.MAX_VALUE;
      for (int bits = scanning; bits != 0; bits &= bits - 1) {
        position = Math.min(position, next[Integer.numberOfTrailingZeros(bits)]);
      }
      int participants = 0;
      for (int bits = scanning; bits != 0; bits &= bits - 1) {
        int lane = Integer.numberOfTrailingZeros(bits);
        if (next[lane] == position) {
          participants |= 1 << lane;
        }
      }
      int misses = participants & ~probe.probe(position, participants);
      s.fallbackProbeCalls++;
      s.fallbackLaneProbes += Integer.bitCount(participants);
      for (int bits = participants; bits != 0; bits &= bits - 1) {
        int lane = Integer.numberOfTrailingZeros(bits);
        if ((misses & (1 << lane)) != 0) {
          depths[lane] = position;
          scanning &= ~(1 << lane);
        } else if (++next[lane] == end[lane]) {
          scanning &= ~(1 << lane);
        }
      }
    }
  }
}
