package dev.kvrelay.ckf.producer;

/**
 * Immutable and thread-safe point-in-time copy of a producer's counters and gauges. Counters are
 * cumulative since the producer was created; sequences are unsigned.
 *
 * @param capacityFailures capacity omissions (full inserts that found no room)
 * @param parentNotFound Stored events rejected for an unknown parent
 * @param unknownRemovals removed external ids unknown to their member
 * @param invalidBlockSequence Stored events rejected as an invalid block sequence
 * @param ownershipOverflows Stored events rejected for {@code u32} owner overflow
 * @param invariantViolations physical deletes that found no copy
 * @param residentCount canonical hashes resident in the table
 * @param mappings (member, external id) mappings
 * @param uniqueCanonicalHashes canonical hashes with at least one owner
 * @param members members holding at least one mapping
 * @param occupiedSlots non-empty table slots
 * @param pendingEvents events applied since the last drain
 * @param dirtyBuckets buckets touched since the last drain
 * @param unchangedPublications drains that changed no bucket
 * @param netRevertedBuckets touched buckets dropped at drain because they were back at their original
 * @param publishedDeltas deltas emitted
 * @param publishedSnapshots snapshots emitted (barrier or oversized delta)
 * @param droppedWithoutSubscriber batches dropped because no lease existed
 * @param oversizedDeltas deltas turned into snapshots for exceeding {@link CkfDelta#MAX_IMAGES}
 * @param lastSequence last published sequence
 * @param fenced whether the publisher is fenced
 */
public record CkfProducerStats(
    long capacityFailures,
    long parentNotFound,
    long unknownRemovals,
    long invalidBlockSequence,
    long ownershipOverflows,
    long invariantViolations,
    long residentCount,
    long mappings,
    long uniqueCanonicalHashes,
    long members,
    long occupiedSlots,
    long pendingEvents,
    long dirtyBuckets,
    long unchangedPublications,
    long netRevertedBuckets,
    long publishedDeltas,
    long publishedSnapshots,
    long droppedWithoutSubscriber,
    long oversizedDeltas,
    long lastSequence,
    boolean fenced) {}
