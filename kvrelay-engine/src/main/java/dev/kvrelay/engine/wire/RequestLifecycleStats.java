package dev.kvrelay.engine.wire;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * Immutable and thread-safe: the request counters and gauges of a model's serving load (wire
 * {@code RequestLifecycleStats}, wan-grpc.md §1.7). Every value is an unsigned u64 carried in a {@code long}.
 *
 * <p>Presence (checked by {@link ServingLoadView}): the four totals are always set; the two gauges are set
 * <b>iff</b> the view's status is {@link DataStatus#COMPLETE}. Pools carry no request stats at all.
 *
 * @param requestsStartedTotal Relay-lifetime cumulative started requests
 * @param requestsCompletedTotal Relay-lifetime cumulative completed requests
 * @param requestsFailedTotal Relay-lifetime cumulative failed requests
 * @param requestsCancelledTotal Relay-lifetime cumulative cancelled requests
 * @param requestsAwaitingFirstToken requests waiting for their first token, iff COMPLETE
 * @param requestsGenerating requests generating, iff COMPLETE
 */
public record RequestLifecycleStats(
    long requestsStartedTotal,
    long requestsCompletedTotal,
    long requestsFailedTotal,
    long requestsCancelledTotal,
    OptionalLong requestsAwaitingFirstToken,
    OptionalLong requestsGenerating) {

  /** Checks for {@code null}. */
  public RequestLifecycleStats {
    Objects.requireNonNull(requestsAwaitingFirstToken, "requestsAwaitingFirstToken");
    Objects.requireNonNull(requestsGenerating, "requestsGenerating");
  }

  /** True if both gauges are set (they must be iff the view is COMPLETE). */
  boolean gaugesPresent(boolean expected) {
    return requestsAwaitingFirstToken.isPresent() == expected && requestsGenerating.isPresent() == expected;
  }
}
