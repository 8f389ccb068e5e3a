package dev.kvrelay.engine.view;

import java.util.List;
import java.util.Objects;

/**
 * Immutable and thread-safe: the answer of {@link GlobalView#query}.
 *
 * @param status whether depths are available
 * @param matches one entry per ready and fresh pool serving the model, ascending by lane (empty unless
 *     {@link Status#ANSWERED})
 * @param generation the view generation the query ran against
 */
public record GlobalViewAnswer(Status status, List<GlobalViewMatch> matches, long generation) {

  /** Immutable and thread-safe: the kind of answer. */
  public enum Status {
    /** At least one pool serving the model was ready and fresh; see {@link #matches()}. */
    ANSWERED,
    /** No assigned pool registers the requested model (target or canonical id); no pool was queried. */
    NO_POOL_FOR_MODEL,
    /** Pools serve the model, but none is ready and fresh. */
    UNAVAILABLE,
    /** The request itself is unusable (null token array or model). */
    INVALID_REQUEST
  }

  /** Copies {@code matches}. */
  public GlobalViewAnswer {
    Objects.requireNonNull(status, "status");
    matches = List.copyOf(matches);
  }

  static GlobalViewAnswer of(Status status, long generation) {
    return new GlobalViewAnswer(status, List.of(), generation);
  }
}
