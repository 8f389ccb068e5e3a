package dev.kvrelay.ckf.producer;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe result of a barrier snapshot: the pending tail published on the old lease
 * (if any), then the snapshot on the new lease.
 *
 * @param tail the tail delta on the old lease, or null if none was published
 * @param snapshot the snapshot at sequence {@code N}; the next delta is {@code N → N+1}
 */
public record BarrierSnapshot(@Nullable CkfDelta tail, CkfSnapshot snapshot) {}
