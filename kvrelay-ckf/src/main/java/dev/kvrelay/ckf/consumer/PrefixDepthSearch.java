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
    QueryProbes probes = scratch.probes;
    probes.useExternal(probe);
    try {
      search(n, readyMask, window, scratch);
    } finally {
      probes.clearExternal();
    }
  }

  /**
   * The search with the oracle already set in {@code s.probes}; {@code n >= 0} and a valid window are the
   * caller's preconditions.
   */
  static void search(int n, int readyMask, int window, PrefixSearchScratch s) {
    s.reset();
    int configured = readyMask & TransposedCkfTable.ALL_LANES;
    if (n == 0 || configured == 0) {
      return;
    }
    QueryProbes probes = s.probes;
    int active = configured & probes.probe(0, configured);
    if (active == 0) {
      return;
    }
    int proposing = gallop(n, active, probes, s);
    bisect(proposing, classOfLowestLane(s), probes, s);
    int marked = verify(active, window, probes, s);
    if (marked != 0) {
      fallback(marked, window, probes, s);
    }
  }

  /**
   * Galloping. All lanes still sampling share one (lower, predecessor) pair, so the lanes that miss at a
   * position form one interval class; the lanes that never miss form the last class with upper = n. The
   * classes are created in ascending interval order and linked in that order.
   *
   * @return the lowest lane of every class that proposes a midpoint (see {@link #bisect})
   */
  private static int gallop(int n, int active, QueryProbes probes, PrefixSearchScratch s) {
    int count = 0;
    int lower = 0;
    int pred = 0;
    int sampling = active;
    int position = 1;
    while (position < n && sampling != 0) {
      int hits = sampling & probes.probe(position, sampling);
      int misses = sampling ^ hits;
      if (misses != 0) {
        count = addClass(s, count, misses, lower, pred, position);
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
      count = addClass(s, count, sampling, lower, pred, n);
    }
    int[] lanes = s.classLanes;
    int[] next = s.classNext;
    int proposing = 0;
    for (int c = 0; c < count; c++) {
      proposing |= lanes[c] & -lanes[c] & proposes(s.classLower[c], s.classUpper[c]);
      next[c] = c + 1;
    }
    next[count - 1] = PrefixSearchScratch.NO_CLASS;
    s.classCount = count;
    return proposing;
  }

  /** Nibble {@code lane} (4 bits per lane) holds the index of the class whose lowest lane is {@code lane}. */
  private static long classOfLowestLane(PrefixSearchScratch s) {
    long slots = 0;
    for (int c = 0; c < s.classCount; c++) {
      slots |= (long) c << (Integer.numberOfTrailingZeros(s.classLanes[c]) << 2);
    }
    return slots;
  }

  /** -1 (all bits) if the interval proposes a midpoint ({@code upper − lower > 1}), else 0. */
  private static int proposes(int lower, int upper) {
    return (1 - (upper - lower)) >> 31;
  }

  /**
   * Bisection, one level per round. Every lane with {@code upper − lower > 1} proposes its midpoint and
   * lanes with equal midpoints share one probe, in the order of their lowest lane. Lanes proposing the
   * same midpoint always have the same (lower, upper, predecessor): their intervals are nodes at the same
   * depth of the same halving tree, so distinct intervals are disjoint and have distinct midpoints. The
   * search therefore keeps lanes in interval classes, splitting a class into its miss lanes (kept in place)
   * and its hit lanes (a new class linked right after it, so the list stays in ascending interval order).
   *
   * <p>A level is the set of lowest lanes of its proposing classes, built while the previous level runs;
   * {@code slots} maps a lowest lane to its class (a nibble per lane), so no per-lane bookkeeping is needed.
   * (Measured: a branch-free update, which writes both halves to slots whose indexes depend on the probe
   * answer, is slower than these branches, because later loads then wait on those stores.)
   */
  private static void bisect(int proposing, long classOfLowestLane, QueryProbes probes, PrefixSearchScratch s) {
    int[] lanes = s.classLanes;
    int[] lower = s.classLower;
    int[] pred = s.classPred;
    int[] upper = s.classUpper;
    int[] next = s.classNext;
    long slots = classOfLowestLane;
    int count = s.classCount;
    int nextLevel = proposing;
    while (nextLevel != 0) {
      int level = nextLevel;
      nextLevel = 0;
      // The level reads class indexes from a copy: visiting one class does not depend on the previous probe.
      long levelSlots = slots;
      if ((level & (level - 1)) != 0) {
        // Several classes probe independent midpoints: issue their loads first so the misses overlap (only
        // the words the class's probe reads: with few lanes, each lane's word in both buckets).
        for (int pending = level; pending != 0; pending &= pending - 1) {
          int c = (int) (levelSlots >>> (Integer.numberOfTrailingZeros(pending) << 2)) & 0xF;
          probes.warm(lower[c] + ((upper[c] - lower[c]) >>> 1), lanes[c]);
        }
      }
      do {
        int c = (int) (levelSlots >>> (Integer.numberOfTrailingZeros(level) << 2)) & 0xF;
        level &= level - 1;
        int members = lanes[c];
        int lo = lower[c];
        int up = upper[c];
        int mid = lo + ((up - lo) >>> 1);
        int hits = members & probes.probe(mid, members);
        int misses = members ^ hits;
        if (hits == 0) {
          upper[c] = mid;
          nextLevel |= (members & -members) & proposes(lo, mid);
        } else if (misses == 0) {
          pred[c] = lo;
          lower[c] = mid;
          nextLevel |= (members & -members) & proposes(mid, up);
        } else {
          lanes[count] = hits;
          lower[count] = mid;
          pred[count] = lo;
          upper[count] = up;
          next[count] = next[c];
          next[c] = count;
          int hitShift = Integer.numberOfTrailingZeros(hits) << 2;
          slots = (slots & ~(0xFL << hitShift)) | ((long) count << hitShift);
          nextLevel |= hits & -hits & proposes(mid, up);
          lanes[c] = misses;
          upper[c] = mid;
          int keepShift = Integer.numberOfTrailingZeros(misses) << 2;
          slots = (slots & ~(0xFL << keepShift)) | ((long) c << keepShift);
          nextLevel |= misses & -misses & proposes(lo, mid);
          count++;
        }
      } while (level != 0);
    }
    s.classCount = count;
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
   * After bisection every class interval is {@code (upper − 1, upper]} and the uppers are distinct, so along
   * the class list window starts and ends both ascend: a sweep enters classes at their window start and
   * retires them at their end, each once.
   */
  private static int verify(int active, int window, QueryProbes probes, PrefixSearchScratch s) {
    int[] depths = s.depths;
    int[] lanes = s.classLanes;
    int[] upper = s.classUpper;
    int[] next = s.classNext;
    int[] classOf = s.classOfLane;
    for (int c = 0; c < s.classCount; c++) {
      int bound = upper[c];
      for (int bits = lanes[c]; bits != 0; bits &= bits - 1) {
        int lane = Integer.numberOfTrailingZeros(bits);
        depths[lane] = bound;
        classOf[lane] = c;
      }
    }

    int verifying = active;
    int marked = 0;
    int entering = 0; // head of the class list: the next class whose window has not started
    int leaving = 0; // the oldest entered class whose window has not ended
    int live = 0; // lanes of the entered, not yet ended classes
    int position = Math.max(0, upper[0] - window);
    while (true) {
      int fresh = 0; // lanes whose window starts at this position
      while (entering != PrefixSearchScratch.NO_CLASS && upper[entering] - window <= position) {
        fresh |= lanes[entering];
        entering = next[entering];
      }
      live |= fresh;
      int participants = live & verifying;
      if (participants != 0) {
        int misses = participants & ~probes.probe(position, participants);
        if (misses != 0) {
          verifying &= ~misses;
          marked |= misses & fresh;
          for (int bits = misses; bits != 0; bits &= bits - 1) {
            depths[Integer.numberOfTrailingZeros(bits)] = position;
          }
        }
      }
      position++;
      while (leaving != entering && upper[leaving] <= position) {
        live &= ~lanes[leaving];
        leaving = next[leaving];
      }
      if (leaving == entering) {
        if (entering == PrefixSearchScratch.NO_CLASS) {
          break;
        }
        position = Math.max(0, upper[entering] - window);
      }
    }
    s.leftEdgeLanes = Integer.bitCount(marked);
    return marked;
  }

  /**
   * Linear scans of {@code [pred + 1, window start)} for the marked lanes, grouped by equal cursor, lowest
   * cursor first; skipped when the predecessor lies inside the window (provenance) or the range is empty.
   */
  private static void fallback(int marked, int window, QueryProbes probes, PrefixSearchScratch s) {
    int[] depths = s.depths;
    int[] next = s.fallbackNext;
    int[] end = s.fallbackEnd;
    int scanning = 0;
    for (int bits = marked; bits != 0; bits &= bits - 1) {
      int lane = Integer.numberOfTrailingZeros(bits);
      int c = s.classOfLane[lane];
      int windowStart = Math.max(0, s.classUpper[c] - window);
      int pred = s.classPred[c];
      if (pred >= windowStart) {
        s.provenanceSkips++;
      } else if (pred + 1 < windowStart) {
        next[lane] = pred + 1;
        end[lane] = windowStart;
        scanning |= 1 << lane;
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
      int misses = participants & ~probes.probe(position, participants);
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
