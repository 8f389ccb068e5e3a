package dev.kvrelay.spi.eventplane;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * Immutable and thread-safe: a worker KV query ({@code WorkerKvQueryRequest}, runtime-inputs.md §6.2).
 *
 * @param workerId {@code worker_id}
 * @param dpRank {@code dp_rank} (unsigned 32-bit)
 * @param startEventId {@code start_event_id}, inclusive; empty = full tree dump
 * @param endEventId {@code end_event_id}, inclusive (validation only); usually empty
 * @param supportsTreeDumpFailed {@code supports_tree_dump_failed}
 * @param kind {@code kind}
 */
public record WorkerKvQueryRequest(
    long workerId,
    int dpRank,
    OptionalLong startEventId,
    OptionalLong endEventId,
    boolean supportsTreeDumpFailed,
    Kind kind) {

  /** Immutable and thread-safe: the query kind ({@code "recovery"} is the only one the Relay sends). */
  public enum Kind {
    /** {@code "recovery"} (the default). */
    RECOVERY("recovery");

    private final String wireName;

    Kind(String wireName) {
      this.wireName = wireName;
    }

    /** The wire name. */
    public String wireName() {
      return wireName;
    }
  }

  /** Requires non-null parts. */
  public WorkerKvQueryRequest {
    Objects.requireNonNull(startEventId, "startEventId");
    Objects.requireNonNull(endEventId, "endEventId");
    Objects.requireNonNull(kind, "kind");
  }

  /** A full restore (tree dump) of {@code (workerId, dpRank)}, as the Relay sends it (producer.md §3.6). */
  public static WorkerKvQueryRequest fullRestore(long workerId, int dpRank) {
    return new WorkerKvQueryRequest(workerId, dpRank, OptionalLong.empty(), OptionalLong.empty(), true, Kind.RECOVERY);
  }

  /** An incremental recovery from {@code startEventId} (inclusive). */
  public static WorkerKvQueryRequest incremental(long workerId, int dpRank, long startEventId) {
    return new WorkerKvQueryRequest(
        workerId, dpRank, OptionalLong.of(startEventId), OptionalLong.empty(), true, Kind.RECOVERY);
  }
}
