package dev.kvrelay.spi.eventplane;

/**
 * Immutable and thread-safe: the {@code scheduler_load_scope} of a scheduler-origin {@link ActiveLoad}
 * (snake_case on the wire).
 */
public enum SchedulerLoadScope {
  /** {@code local}. */
  LOCAL("local"),
  /** {@code replica_synchronized}. */
  REPLICA_SYNCHRONIZED("replica_synchronized");

  private final String wireName;

  SchedulerLoadScope(String wireName) {
    this.wireName = wireName;
  }

  /** The wire name. */
  public String wireName() {
    return wireName;
  }
}
