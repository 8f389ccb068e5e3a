package dev.kvrelay.launcher;

import java.util.List;

/**
 * Immutable and thread-safe: what one run of the embedded demo found.
 *
 * @param checks every (request, DC) answer next to its expected depth, in printed order
 * @param elapsedNanos the wall time of the whole run, set-up and shut-down included
 */
record DemoOutcome(List<PrefixCheck> checks, long elapsedNanos) {

  /** Copies the list. */
  DemoOutcome {
    checks = List.copyOf(checks);
  }

  /** True if there was something to check and every answer equals its expected depth. */
  boolean passed() {
    return !checks.isEmpty() && checks.stream().allMatch(PrefixCheck::passed);
  }

  /** The process exit status: 0 when {@link #passed()}, else 1. */
  int exitStatus() {
    return passed() ? 0 : 1;
  }
}
