package dev.kvrelay.engine.load;

import dev.kvrelay.engine.wire.DataStatus;
import java.util.OptionalLong;

/**
 * Immutable and thread-safe: the scheduler-view aggregate of one pool (wan-grpc.md §4.2, decision (A)):
 * max within the replica-synchronized group, latest per standalone ({@code local}) scheduler, saturating
 * Σ across groups and ranks. Gauges are present iff {@link DataStatus#COMPLETE} (presence rules §1.7, pools).
 *
 * @param status COMPLETE, DEGRADED or UNAVAILABLE
 * @param activePrefillTokens Σ active prefill tokens, iff COMPLETE
 * @param activeDecodeBlocks Σ active decode blocks, iff COMPLETE
 * @param sourceObservedMs oldest {@code published_at} of a contributing fresh view, 0 when none
 */
record SchedulerLoad(
    DataStatus status, OptionalLong activePrefillTokens, OptionalLong activeDecodeBlocks, long sourceObservedMs) {

  /** No fresh scheduler view. */
  public static final SchedulerLoad UNAVAILABLE =
      new SchedulerLoad(DataStatus.UNAVAILABLE, OptionalLong.empty(), OptionalLong.empty(), 0);

  /**
   * @throws IllegalArgumentException if gauge presence does not match the status
   */
  public SchedulerLoad {
    boolean complete = status == DataStatus.COMPLETE;
    if (activePrefillTokens.isPresent() != complete || activeDecodeBlocks.isPresent() != complete) {
      throw new IllegalArgumentException("scheduler gauges must be set iff COMPLETE, status " + status);
    }
  }
}
