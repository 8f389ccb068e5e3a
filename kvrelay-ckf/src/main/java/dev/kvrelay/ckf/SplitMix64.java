package dev.kvrelay.ckf;

/**
 * Not thread-safe: confined to the pool actor that owns the table. The producer's kick-path random
 * source: splitmix64 over a 64-bit state, all arithmetic wrapping.
 *
 * <pre>
 *   next():  state += GOLDEN; z = state;
 *            z = (z ^ (z &gt;&gt;&gt; 30)) * 0xBF58476D1CE4E5B9;
 *            z = (z ^ (z &gt;&gt;&gt; 27)) * 0x94D049BB133111EB;
 *            return z ^ (z &gt;&gt;&gt; 31)
 *   lane seed: s = seed ^ ((lane + 1) * GOLDEN); state0 = the output of one next() step from s
 * </pre>
 */
public final class SplitMix64 {
  /** The splitmix64 increment (golden ratio). */
  public static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;

  private long state;

  private SplitMix64(long state) {
    this.state = state;
  }

  /** A generator whose state is exactly {@code state}. */
  public static SplitMix64 withState(long state) {
    return new SplitMix64(state);
  }

  /** The generator a producer starts with for CKF {@code seed} and lane 0 ({@code lane_rng_seed}). */
  public static SplitMix64 forLane0(long seed) {
    return new SplitMix64(laneSeed(seed, 0));
  }

  /** {@code state0} for a CKF seed and lane (lane treated as unsigned). */
  public static long laneSeed(long seed, int lane) {
    long s = seed ^ (((lane & 0xFFFF_FFFFL) + 1) * GOLDEN);
    return mix(s + GOLDEN);
  }

  /** The next 64-bit draw. */
  public long next() {
    state += GOLDEN;
    return mix(state);
  }

  /** The current state (the value the next draw starts from). */
  public long state() {
    return state;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return z ^ (z >>> 31);
  }
}
