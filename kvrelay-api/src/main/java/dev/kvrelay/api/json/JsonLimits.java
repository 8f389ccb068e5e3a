package dev.kvrelay.api.json;

/**
 * Immutable and thread-safe: the bounds a reader enforces on untrusted input.
 *
 * @param maxDepth most nested arrays and objects (the top-level container is depth 1); 1..{@value
 *     #MAX_DEPTH_BOUND}, so that the recursive reader stays far from the thread stack limit
 * @param maxLength longest input, in UTF-16 chars for text and in bytes for UTF-8 input; at least 1
 */
public record JsonLimits(int maxDepth, int maxLength) {

  /** Largest accepted {@code maxDepth}. */
  public static final int MAX_DEPTH_BOUND = 1024;
  /** Default nesting bound. */
  public static final int DEFAULT_MAX_DEPTH = 256;
  /** Default size bound: 16 MiB, ten times the largest etcd value or Kubernetes object. */
  public static final int DEFAULT_MAX_LENGTH = 16 * 1024 * 1024;
  /** Depth {@value #DEFAULT_MAX_DEPTH}, length {@value #DEFAULT_MAX_LENGTH}. */
  public static final JsonLimits DEFAULT = new JsonLimits(DEFAULT_MAX_DEPTH, DEFAULT_MAX_LENGTH);

  /**
   * @throws IllegalArgumentException if a bound is below 1 or {@code maxDepth} exceeds {@value #MAX_DEPTH_BOUND}
   */
  public JsonLimits {
    if (maxDepth < 1 || maxDepth > MAX_DEPTH_BOUND || maxLength < 1) {
      throw new IllegalArgumentException("JSON limits out of range: depth " + maxDepth + ", length " + maxLength);
    }
  }
}
