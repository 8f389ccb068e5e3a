package dev.kvrelay.ckf.consumer;

import dev.kvrelay.api.CkfFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: the single writer of one physical lane ({@code GlobalCkfLaneIngestor}, ckf-cbi1.md §7),
 * confined to that lane's ingestion thread. Holds the lane's lease, installed sequence and validation
 * scratch; query threads see only the table words and the lane's ready bit.
 *
 * <p>Every frame is checked in the spec's order and answered with a typed {@link LaneIngestOutcome}. A
 * rejected frame writes no word: all validation happens before the first store. Deactivation only clears
 * the ready bit; the lane then needs a snapshot (normally under a new lease) before it is queried again.
 * Snapshots become visible to queries through a release store of the ready bit; deltas are applied to a
 * ready lane bucket by bucket, not atomically for readers. Sequences and epochs are unsigned 64-bit values.
 *
 * @param <P> the engine's pool identity type, compared with {@code equals}
 */
public final class GlobalCkfLaneIngestor<P> implements AutoCloseable {
  private final GlobalCkfIndexer<P> indexer;
  private final TransposedCkfTable table;
  private final int lane;
  private final CkfLaneOwner<P> owner;
  private final int bucketCount;
  /** One bit per bucket, all zero between deltas. */
  private final long[] seenBuckets;

  private @Nullable LaneLease lease;
  private @Nullable P identity;
  private boolean hasAssignmentEpoch;
  private long lastAssignmentEpoch;
  private long installedSequence;
  private boolean ready;
  private boolean closed;

  GlobalCkfLaneIngestor(GlobalCkfIndexer<P> indexer, int lane, CkfLaneOwner<P> owner) {
    this.indexer = indexer;
    this.table = indexer.table();
    this.lane = lane;
    this.owner = owner;
    this.bucketCount = table.bucketCount();
    this.seenBuckets = new long[(bucketCount + 63) >>> 6];
  }

  /** The physical lane this ingestor writes. */
  public int lane() {
    return lane;
  }

  /** The current lease, or null if unassigned. */
  public @Nullable LaneLease lease() {
    return lease;
  }

  /** True if a snapshot is installed and the lane's ready bit is set. */
  public boolean isReady() {
    return ready;
  }

  /** The installed sequence (unsigned); meaningful only while {@link #isReady()}. */
  public long installedSequence() {
    return installedSequence;
  }

  /**
   * Assigns a lease for {@code pool} whose producer uses {@code format}. Requires the manifest's consumer
   * instance, this physical lane, the lane's pool, the manifest's format and an assignment epoch strictly
   * greater (unsigned) than the lane's previous one. On success the lane's ready bit is cleared first and
   * the installed sequence resets to 0; on failure nothing changes.
   */
  public LaneAssignmentResult assign(P pool, CkfFormat format, LaneLease newLease) {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(newLease, "newLease");
    if (closed) {
      return LaneAssignmentResult.INGESTOR_CLOSED;
    }
    GlobalCkfManifest<P> manifest = indexer.manifest();
    if (newLease.consumerInstance() != manifest.consumerInstance()) {
      return LaneAssignmentResult.WRONG_CONSUMER_INSTANCE;
    }
    if (newLease.physicalLane() != lane) {
      return LaneAssignmentResult.WRONG_PHYSICAL_LANE;
    }
    if (!owner.pool().equals(pool)) {
      return LaneAssignmentResult.WRONG_LANE_OWNER;
    }
    if (!manifest.format().equals(format)) {
      return LaneAssignmentResult.WRONG_FORMAT;
    }
    if (hasAssignmentEpoch && Long.compareUnsigned(newLease.assignmentEpoch(), lastAssignmentEpoch) <= 0) {
      return LaneAssignmentResult.STALE_ASSIGNMENT_EPOCH;
    }
    clearReady();
    lease = newLease;
    identity = pool;
    hasAssignmentEpoch = true;
    lastAssignmentEpoch = newLease.assignmentEpoch();
    installedSequence = 0;
    return LaneAssignmentResult.ASSIGNED;
  }

  /** Drops the lease and clears the ready bit; the last assignment epoch is kept. */
  public void retire() {
    clearReady();
    lease = null;
    identity = null;
    installedSequence = 0;
  }

  /**
   * Offers a full snapshot ({@code words.length} must be B). Order: foreign lease → ignore; identity
   * mismatch → deactivate; ready and {@code sequence ≤ installed} → ignore; length ≠ B → deactivate; ready
   * (and newer) → deactivate ({@code SnapshotWhileReady}); otherwise clear ready, store all B words, set
   * the installed sequence and publish the ready bit with release semantics.
   */
  public LaneIngestOutcome installSnapshot(LaneLease frameLease, P frameIdentity, long sequence, long[] words) {
    if (lease == null || !lease.equals(frameLease)) {
      return LaneIngestOutcome.IGNORED_FOREIGN_LEASE;
    }
    if (!Objects.equals(identity, frameIdentity)) {
      return deactivate(LaneIngestOutcome.WRONG_IDENTITY);
    }
    if (ready && Long.compareUnsigned(sequence, installedSequence) <= 0) {
      return LaneIngestOutcome.IGNORED_STALE;
    }
    if (words.length != bucketCount) {
      return deactivate(LaneIngestOutcome.INVALID_SNAPSHOT_BUCKET_COUNT);
    }
    if (ready) {
      return deactivate(LaneIngestOutcome.SNAPSHOT_WHILE_READY);
    }
    clearReady();
    for (int bucket = 0; bucket < bucketCount; bucket++) {
      table.store(bucket, lane, words[bucket]);
    }
    installedSequence = sequence;
    ready = true;
    table.publishReady(lane);
    return LaneIngestOutcome.SNAPSHOT_INSTALLED;
  }

  /**
   * Offers a delta of absolute bucket images {@code (buckets[i], words[i])} for {@code i < count}. Order:
   * foreign lease → ignore; identity mismatch → deactivate; not ready → {@code AWAITING_SNAPSHOT};
   * {@code sequence ≤ installed} → ignore; {@code base ≠ installed} → deactivate; {@code sequence ≠ base+1}
   * → deactivate; inconsistent arrays → deactivate ({@code MALFORMED_DELTA}); no image → {@code EMPTY_DELTA};
   * then per image in order, bucket outside {@code [0, B)} → {@code INVALID_IMAGE_INDEX} and repeated bucket →
   * {@code DUPLICATE_IMAGE_INDEX} (both deactivate); finally every image is stored and installed = sequence.
   * Duplicate detection reuses a bucket bitmap: no allocation.
   */
  public LaneIngestOutcome applyDelta(LaneLease frameLease, P frameIdentity, long baseSequence, long sequence,
      int[] buckets, long[] words, int count) {
    if (lease == null || !lease.equals(frameLease)) {
      return LaneIngestOutcome.IGNORED_FOREIGN_LEASE;
    }
    if (!Objects.equals(identity, frameIdentity)) {
      return deactivate(LaneIngestOutcome.WRONG_IDENTITY);
    }
    if (!ready) {
      return LaneIngestOutcome.AWAITING_SNAPSHOT;
    }
    if (Long.compareUnsigned(sequence, installedSequence) <= 0) {
      return LaneIngestOutcome.IGNORED_STALE;
    }
    if (baseSequence != installedSequence) {
      return deactivate(LaneIngestOutcome.BASE_SEQUENCE_MISMATCH);
    }
    // base == installed < sequence, so base + 1 cannot wrap.
    if (sequence != baseSequence + 1) {
      return deactivate(LaneIngestOutcome.NON_CONTIGUOUS_SEQUENCE);
    }
    if (count < 0 || count > buckets.length || count > words.length) {
      return deactivate(LaneIngestOutcome.MALFORMED_DELTA);
    }
    if (count == 0) {
      return deactivate(LaneIngestOutcome.EMPTY_DELTA);
    }
    LaneIngestOutcome invalid = validateImages(buckets, count);
    if (invalid != null) {
      return deactivate(invalid);
    }
    for (int i = 0; i < count; i++) {
      table.store(buckets[i], lane, words[i]);
    }
    installedSequence = sequence;
    return LaneIngestOutcome.DELTA_APPLIED;
  }

  /**
   * Drain marker check ({@code ConsumerDrainMarker}): acknowledged only if the lane is ready and its
   * installed sequence equals {@code expectedSequence}; otherwise the lane is deactivated
   * ({@code TerminalSequenceMismatch}). A foreign lease is ignored.
   */
  public LaneIngestOutcome completeDrain(LaneLease markerLease, long expectedSequence) {
    return confirmSequence(markerLease, expectedSequence, LaneIngestOutcome.DRAIN_ACKNOWLEDGED);
  }

  /**
   * WAN heartbeat check (base = sequence = current, no advance): the same rule as
   * {@link #completeDrain(LaneLease, long)} for the stream's lease.
   */
  public LaneIngestOutcome checkHeartbeat(LaneLease streamLease, long sequence) {
    return confirmSequence(streamLease, sequence, LaneIngestOutcome.HEARTBEAT_ACKNOWLEDGED);
  }

  /** Retires the lane and releases its claim so the indexer can hand out a new ingestor. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      retire();
      closed = true;
      indexer.releaseLane(lane);
    }
  }

  private LaneIngestOutcome confirmSequence(LaneLease frameLease, long expected, LaneIngestOutcome ack) {
    if (lease == null || !lease.equals(frameLease)) {
      return LaneIngestOutcome.IGNORED_FOREIGN_LEASE;
    }
    if (ready && installedSequence == expected) {
      return ack;
    }
    return deactivate(LaneIngestOutcome.TERMINAL_SEQUENCE_MISMATCH);
  }

  /** Null if all images are valid; the bitmap is all zero again on return. */
  private @Nullable LaneIngestOutcome validateImages(int[] buckets, int count) {
    LaneIngestOutcome fault = null;
    int checked = 0;
    for (; checked < count; checked++) {
      int bucket = buckets[checked];
      if (bucket < 0 || bucket >= bucketCount) {
        fault = LaneIngestOutcome.INVALID_IMAGE_INDEX;
        break;
      }
      long bit = 1L << bucket;
      int word = bucket >>> 6;
      if ((seenBuckets[word] & bit) != 0) {
        fault = LaneIngestOutcome.DUPLICATE_IMAGE_INDEX;
        break;
      }
      seenBuckets[word] |= bit;
    }
    for (int i = 0; i < checked; i++) {
      int bucket = buckets[i];
      seenBuckets[bucket >>> 6] &= ~(1L << bucket);
    }
    return fault;
  }

  private LaneIngestOutcome deactivate(LaneIngestOutcome fault) {
    clearReady();
    return fault;
  }

  private void clearReady() {
    table.retireReady(lane);
    ready = false;
  }

  @Override
  public String toString() {
    return "GlobalCkfLaneIngestor[lane=" + lane + ", lease=" + lease + ", ready=" + ready + ", installed="
        + Long.toUnsignedString(installedSequence) + "]";
  }
}
