package dev.kvrelay.spi.eventplane;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Immutable and thread-safe: the first stream item of a worker KV query's answer
 * ({@code WorkerKvQueryResponse}, externally tagged, runtime-inputs.md §6.2). The engine's resume
 * algorithm decides what to do with each variant.
 */
public sealed interface WorkerKvQueryResponse
    permits WorkerKvQueryResponse.Events, WorkerKvQueryResponse.TreeDump, WorkerKvQueryResponse.TreeDumpFailed,
        WorkerKvQueryResponse.TooNew, WorkerKvQueryResponse.InvalidRange, WorkerKvQueryResponse.Error {

  /**
   * Immutable and thread-safe: buffered events from the requested start ({@code Events}).
   *
   * @param events the events, in order
   * @param lastEventId {@code last_event_id}: the cursor after applying them
   */
  record Events(List<RouterEvent> events, long lastEventId) implements WorkerKvQueryResponse {
    /** Copies the list. */
    public Events {
      events = List.copyOf(events);
    }
  }

  /**
   * Immutable and thread-safe: a full tree dump ({@code TreeDump}): replay-ordered Stored events with
   * synthetic ids, parents before children.
   *
   * @param events the events
   * @param lastEventId {@code last_event_id}: the cursor after the dump
   * @param resetScope {@code reset_scope} as received (e.g. {@code all}); the engine treats any value as
   *     whole-rank (producer.md §3.6)
   */
  record TreeDump(List<RouterEvent> events, long lastEventId, String resetScope) implements WorkerKvQueryResponse {
    /** Copies the list. */
    public TreeDump {
      events = List.copyOf(events);
      Objects.requireNonNull(resetScope, "resetScope");
    }
  }

  /**
   * Immutable and thread-safe: the worker could not dump its tree ({@code TreeDumpFailed}); not an
   * authoritative empty tree.
   *
   * @param lastEventId {@code last_event_id}
   * @param message the worker's message
   */
  record TreeDumpFailed(long lastEventId, String message) implements WorkerKvQueryResponse {
    /** Requires a message. */
    public TreeDumpFailed {
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * Immutable and thread-safe: the requested range is newer than the worker's newest event
   * ({@code TooNew}).
   *
   * @param requestedStart {@code requested_start}
   * @param requestedEnd {@code requested_end}
   * @param newestAvailable {@code newest_available}
   */
  record TooNew(OptionalLong requestedStart, OptionalLong requestedEnd, long newestAvailable)
      implements WorkerKvQueryResponse {
    /** Requires non-null optionals. */
    public TooNew {
      Objects.requireNonNull(requestedStart, "requestedStart");
      Objects.requireNonNull(requestedEnd, "requestedEnd");
    }
  }

  /**
   * Immutable and thread-safe: the requested range is invalid ({@code InvalidRange}).
   *
   * @param startId {@code start_id}
   * @param endId {@code end_id}
   */
  record InvalidRange(OptionalLong startId, OptionalLong endId) implements WorkerKvQueryResponse {
    /** Requires non-null optionals. */
    public InvalidRange {
      Objects.requireNonNull(startId, "startId");
      Objects.requireNonNull(endId, "endId");
    }
  }

  /**
   * Immutable and thread-safe: the worker reported an error ({@code {"Error": "msg"}}).
   *
   * @param message the worker's message
   */
  @SuppressWarnings("JavaLangClash") // the wire variant's name; always used qualified, WorkerKvQueryResponse.Error
  record Error(String message) implements WorkerKvQueryResponse {
    /** Requires a message. */
    public Error {
      Objects.requireNonNull(message, "message");
    }
  }
}
