package dev.kvrelay.engine;

import java.security.SecureRandom;

/**
 * Immutable and thread-safe: this process's runtime instance id when none is configured (producer.md §1.1 decision
 * (b)): 53 random bits, drawn once per process, so it stays constant across in-process relay restarts while each
 * start gets a new incarnation.
 */
final class ProcessInstance {
  static final long ID = new SecureRandom().nextLong() & 0x001F_FFFF_FFFF_FFFFL;

  private ProcessInstance() {}
}
