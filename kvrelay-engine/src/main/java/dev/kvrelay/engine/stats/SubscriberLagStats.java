package dev.kvrelay.engine.stats;

import dev.kvrelay.api.KvPoolId;
import java.util.Objects;

/**
 * Immutable and thread-safe: how far one pool-stream subscriber is behind its publication hub at one read (issue 12
 * "replica lag per subscriber"). Read without the stream's lock from values the stream publishes as it queues and
 * hands out frames, so the fields are each exact but not necessarily from the same instant.
 *
 * @param subscriberId the subscriber id the stream was opened with
 * @param stream the WAN stream type ({@code pool})
 * @param pool the pool the stream follows
 * @param queuedFrames delta frames queued for the subscriber and not yet taken
 * @param queuedBytes their cost against the queue's byte budget (payload + 256 per frame)
 * @param publishedSequence the wire sequence of the newest frame queued for the subscriber (its snapshot's sequence
 *     before the first delta), unsigned
 * @param deliveredSequence the wire sequence of the last frame handed to the subscriber (the snapshot's sequence
 *     until its first delta), unsigned
 * @param sequenceLag {@code publishedSequence − deliveredSequence}: deltas published but not yet taken
 * @param pendingSnapshotChunks snapshot chunks not yet taken (0 once the bootstrap is done)
 * @param connectedSinceMicros when the stream was opened, µs since the epoch (the hub's wall clock)
 */
public record SubscriberLagStats(
    String subscriberId,
    String stream,
    KvPoolId pool,
    int queuedFrames,
    long queuedBytes,
    long publishedSequence,
    long deliveredSequence,
    long sequenceLag,
    int pendingSnapshotChunks,
    long connectedSinceMicros) {

  /** Requires the names. */
  public SubscriberLagStats {
    Objects.requireNonNull(subscriberId, "subscriberId");
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(pool, "pool");
  }
}
