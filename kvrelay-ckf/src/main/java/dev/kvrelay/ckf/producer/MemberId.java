package dev.kvrelay.ckf.producer;

/**
 * Immutable and thread-safe ownership member: a worker's data-parallel rank. Ordered by
 * {@code worker_id} then {@code dp_rank}, both compared as unsigned integers.
 *
 * @param workerId the worker (discovery instance) id, an unsigned 64-bit value
 * @param dpRank the data-parallel rank, an unsigned 32-bit value
 */
public record MemberId(long workerId, int dpRank) implements Comparable<MemberId> {
  @Override
  public int compareTo(MemberId other) {
    int c = Long.compareUnsigned(workerId, other.workerId);
    return c != 0 ? c : Integer.compareUnsigned(dpRank, other.dpRank);
  }

  @Override
  public String toString() {
    return "(" + Long.toUnsignedString(workerId) + ", " + Integer.toUnsignedString(dpRank) + ")";
  }
}
