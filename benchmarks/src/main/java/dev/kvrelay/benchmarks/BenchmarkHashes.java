package dev.kvrelay.benchmarks;

/**
 * Stateless and thread-safe deterministic 64-bit values for benchmark fixtures: the value at index
 * {@code x} is the splitmix64 finalizer of {@code x · φ}, a bijection of {@code x}, so distinct indexes give
 * distinct values. Each fixture stream owns its own index range ({@link #stream(int)} plus an offset below
 * 2^40), which keeps streams disjoint.
 */
final class BenchmarkHashes {
  private static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;
  /** Each stream owns 2^40 indexes. */
  private static final int STREAM_SHIFT = 40;

  private BenchmarkHashes() {}

  /** First index of stream {@code s} (0 ≤ s < 2^23). */
  static long stream(int s) {
    return (long) s << STREAM_SHIFT;
  }

  /** The value at absolute index {@code index} (a stream start plus an offset below 2^40). */
  static long at(long index) {
    long z = index * GOLDEN;
    z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
    return z ^ (z >>> 31);
  }
}
