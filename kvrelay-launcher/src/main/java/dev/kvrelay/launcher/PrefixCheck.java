package dev.kvrelay.launcher;

import java.util.Objects;

/**
 * Immutable and thread-safe: one line of the demo's self-check, a router's answer for one request in one DC
 * next to the depth the demo knows from what the DC's workers cached.
 *
 * @param request the request's label
 * @param dc the data center name
 * @param requestBlocks the number of full blocks of the request
 * @param expectedBlocks the exact cached prefix depth (from the workers' caches)
 * @param answeredBlocks the depth the router answered, or {@value #NO_ANSWER} if it gave no depth for the DC
 * @param answeredTokens the matched tokens the router answered (0 without an answer)
 */
record PrefixCheck(
    String request, String dc, int requestBlocks, int expectedBlocks, int answeredBlocks, long answeredTokens) {

  /** The router gave no depth for the DC (pool not ready, not fresh, or not serving the model). */
  static final int NO_ANSWER = -1;

  /** Requires non-null names and a non-negative expected depth. */
  PrefixCheck {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(dc, "dc");
    if (expectedBlocks < 0 || requestBlocks < 0) {
      throw new IllegalArgumentException("negative block count");
    }
  }

  /** True if the router answered exactly the expected depth. */
  boolean passed() {
    return answeredBlocks == expectedBlocks;
  }
}
