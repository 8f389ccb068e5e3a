package dev.kvrelay.ckf.consumer;

/**
 * Immutable and thread-safe: the lease under which one producer feeds one physical consumer lane.
 * Snapshots, deltas and drain markers carrying another lease are ignored by the lane.
 *
 * @param consumerInstance the consumer instance id (unsigned 64-bit)
 * @param physicalLane the lane index, 0..15
 * @param assignmentEpoch unsigned 64-bit epoch; each new assignment of a lane must use a strictly larger one
 */
public record LaneLease(long consumerInstance, int physicalLane, long assignmentEpoch) {
  @Override
  public String toString() {
    return "LaneLease[consumer=" + Long.toUnsignedString(consumerInstance) + ", lane=" + physicalLane
        + ", epoch=" + Long.toUnsignedString(assignmentEpoch) + "]";
  }
}
