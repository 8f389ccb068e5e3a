package dev.kvrelay.engine.wire;

import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: one serving-load view (wire {@code LoadView}, wan-grpc.md §1.7; named so it does
 * not clash with the consumer's {@code dev.kvrelay.engine.consumer.LoadView}).
 *
 * <p>This record checks the rules that hold for pools and models alike (the request gauges are set iff
 * COMPLETE); {@link PoolServingLoad} and {@link ModelServingLoad} check the rules of their kind.
 *
 * @param requests pools: unset; models: required
 * @param tokens the token load (required)
 * @param status COMPLETE, DEGRADED or UNAVAILABLE (the wire's UNSPECIFIED is never produced)
 * @param sourceObservedMs producer wall clock of the oldest contributing report (Unix ms, u64); 0 when none
 */
public record ServingLoadView(
    Optional<RequestLifecycleStats> requests, TokenLoadStats tokens, DataStatus status, long sourceObservedMs) {

  /**
   * @throws IllegalArgumentException if request stats are present and their gauges are not set iff COMPLETE
   */
  public ServingLoadView {
    Objects.requireNonNull(requests, "requests");
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(status, "status");
    if (requests.isPresent() && !requests.get().gaugesPresent(status == DataStatus.COMPLETE)) {
      throw new IllegalArgumentException(
          "requests_awaiting_first_token / requests_generating must be set iff COMPLETE, status " + status);
    }
  }

  /** True if the view is COMPLETE. */
  boolean complete() {
    return status == DataStatus.COMPLETE;
  }
}
