package dev.kvrelay.ckf.producer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CuckooTable;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the pool actor (single writer). One pool's CKF producer: exact
 * ownership of canonical sequence hashes by (member, external id) mappings, the physical cuckoo table,
 * the dirty-bucket window and publication sequencing.
 *
 * <p><b>Ownership</b> ({@code ckf-cbi1.md} §3.4, decision (b)): the owner count of a canonical hash
 * counts (member, external id) mappings. A count going 0→1 inserts one fingerprint (with relocation),
 * 1→0 deletes one if the hash is resident; a failed insert is a capacity omission: ownership stays
 * committed, the hash is not resident, nothing is reported dirty. Residency filtering is the caller's
 * job: only primary-residency events reach this class.
 *
 * <p><b>Cost</b>: event application does not allocate once the reusable scratch arrays have grown to the
 * working set. The owners map starts presized for 1¼ × {@link CkfProducerConfig#expectedUniqueBlocks()} (the
 * expected blocks at ≤ 72 % load); past that both maps grow incrementally ({@link GrowingTable}: the next table
 * is allocated ahead, off the actor thread, and the old one migrated a few slots per later insertion), so no
 * growth rehashes a whole map on the actor. Publication allocates the image arrays of each delta or snapshot.
 *
 * <p>Size: about 500 lines, kept in one class because the event paths (Stored, Removed, Cleared, rank
 * replacement) share the touch-ahead batch and the dirty window field by field; the separable jobs are already
 * the parts below.
 *
 * <p><b>Parts</b> (package-private, confined with it): {@link StoredPreparation} validates a Stored event,
 * {@link TouchAhead} prepares addresses and reads state ahead of the updates, {@link OwnerRule} adds an
 * owner, {@link RankRebuild} rebuilds off-side for {@link #replaceRanks}, and {@link PublicationSequencer}
 * holds the sequence, lease and fence and builds each publication.
 *
 * <p><b>Publication</b> ({@code ckf-cbi1.md} §5): every applied event adds one pending event;
 * {@link #shouldDrain()} says when the cadence threshold is reached; {@link #drain()} emits the changed
 * buckets as one delta {@code last → last+1} on the current lease, or a {@link NoPublication} reason.
 * A drain that changes no bucket is an "unchanged publication": no delta, no sequence advance.
 */
public final class CkfProducer {
  private static final int INITIAL_OWNERS_CAPACITY = 1024;
  /**
   * Blocks whose state is touched ahead of their updates: far enough to overlap the cache misses of
   * many independent blocks, near enough that the touched lines are still cached when used.
   */
  static final int TOUCH_AHEAD = 32;

  private final CkfProducerConfig config;
  private final CkfAddressing addressing;
  private final DirtyWindow dirty;
  private final StoredPreparation preparation = new StoredPreparation();
  /** Prepared addresses and touch-ahead reads of the current event. */
  private final TouchAhead ahead = new TouchAhead();
  private CuckooTable table;
  private OwnersMap owners;
  private MemberDirectory members;
  private long mappings;
  private long residentCount;

  private long capacityFailures;
  private long parentNotFound;
  private long unknownRemovals;
  private long invalidBlockSequence;
  private long ownershipOverflows;
  private long invariantViolations;
  private long pendingEvents;
  /** Sequence, lease, fence and publication counters. */
  private final PublicationSequencer publisher = new PublicationSequencer();

  private CkfProducer(CkfProducerConfig config) {
    this.config = config;
    this.addressing = CkfAddressing.of(config.format());
    this.table = newTable();
    this.dirty = new DirtyWindow(table.bucketCount());
    this.owners = new OwnersMap(
        Math.max(INITIAL_OWNERS_CAPACITY, OwnersMap.presizedCapacityFor(config.expectedUniqueBlocks())));
    this.members = new MemberDirectory();
  }

  /** A new, empty producer: sequence 0, no lease, all buckets zero, RNG at {@code state0}. */
  public static CkfProducer create(CkfProducerConfig config) {
    return new CkfProducer(config);
  }

  private CuckooTable newTable() {
    try {
      return CuckooTable.create(addressing, config.maxKicks());
    } catch (CkfConfigException e) {
      throw new IllegalStateException("validated max_kicks rejected", e);
    }
  }

  // ---------------------------------------------------------------- events

  /**
   * Applies a Stored event. Rejections ({@code PARENT_BLOCK_NOT_FOUND}, {@code INVALID_BLOCK_SEQUENCE},
   * {@code OWNERSHIP_DEGREE_OVERFLOW}) commit nothing; {@code CAPACITY_EXHAUSTED} reports an omission
   * after every block was committed. Commit order: the new mappings in block order (each non-resident
   * hash inserted with relocation), then the re-offered blocks in block order (relocation-free, silent
   * on failure). Counts one pending event in every case.
   */
  public CkfOutcome stored(StoredBatch event) {
    pendingEvents++;
    int n = event.size();
    if (n == 0) {
      return CkfOutcome.OK;
    }
    long worker = event.workerId();
    int rank = event.dpRank();
    LongLongMap lineage = members.get(worker, rank);
    CkfOutcome chained = preparation.chain(event, lineage);
    if (chained != CkfOutcome.OK) {
      return countRejection(chained);
    }
    // The blocks' lineage, owners and table lines are touched together, before the classification reads them.
    long[] packed = ahead.prepareStored(addressing, owners, table, preparation, lineage, event, n);
    CkfOutcome classified = preparation.classify(event, lineage);
    if (classified != CkfOutcome.OK) {
      return countRejection(classified);
    }
    if (preparation.ownerCountFull(owners, n)) {
      return countRejection(CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW);
    }
    if (lineage == null) {
      lineage = members.getOrCreate(worker, rank);
    }
    CkfOutcome first = CkfOutcome.OK;
    for (int i = 0; i < n; i++) {
      if (i + TOUCH_AHEAD < n) {
        ahead.touchStored(owners, table, preparation, lineage, event, packed, i + TOUCH_AHEAD);
      }
      if (preparation.kind(i) == StoredPreparation.NEW_MAPPING) {
        CkfOutcome blockOutcome = addMapping(lineage, event.rawExternalHash(i), preparation.canonical(i), packed[i]);
        if (first == CkfOutcome.OK) {
          first = blockOutcome;
        }
      }
    }
    // Re-offers come after every new hash of the event (ckf-cbi1.md §3.4 commit order), so a cheap
    // relocation-free re-offer never takes a slot from a new hash and never causes an omission.
    for (int i = 0; i < n; i++) {
      if (preparation.kind(i) == StoredPreparation.REOFFER) {
        reoffer(preparation.canonical(i));
      }
    }
    return first;
  }

  private CkfOutcome countRejection(CkfOutcome outcome) {
    switch (outcome) {
      case PARENT_BLOCK_NOT_FOUND -> parentNotFound++;
      case INVALID_BLOCK_SEQUENCE -> invalidBlockSequence++;
      case OWNERSHIP_DEGREE_OVERFLOW -> ownershipOverflows++;
      default -> { }
    }
    return outcome;
  }

  private CkfOutcome addMapping(LongLongMap lineage, long external, long canonical, long packed) {
    int added = OwnerRule.addOwner(owners, table, canonical, packed, dirty);
    if (added == OwnerRule.OWNER_OVERFLOW) {
      // Only reachable through a duplicate canonical hash inside one batch; the block is skipped.
      ownershipOverflows++;
      return CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW;
    }
    lineage.insertAbsent(external, canonical);
    mappings++;
    if (added == OwnerRule.OMITTED) {
      capacityFailures++;
      return CkfOutcome.CAPACITY_EXHAUSTED;
    }
    if (added == OwnerRule.ADMITTED) {
      residentCount++;
    }
    return CkfOutcome.OK;
  }

  private void reoffer(long canonical) {
    int o = owners.indexOf(canonical);
    if (o != OwnersMap.MISSING && !owners.residentAt(o) && table.insertWithoutRelocation(canonical, dirty)) {
      owners.setResidentAt(o, true);
      residentCount++;
    }
  }

  /**
   * Applies a Removed event for {@code hashes[0, count)}: each known external id drops its mapping and
   * one owner; unknown ids are counted no-ops. Counts one pending event.
   *
   * @throws IllegalArgumentException if {@code count} is outside {@code [0, hashes.length]} (caller bug)
   */
  public CkfOutcome removed(long workerId, int dpRank, long[] hashes, int count) {
    if (count < 0 || count > hashes.length) {
      throw new IllegalArgumentException("count " + count + " outside 0.." + hashes.length);
    }
    pendingEvents++;
    LongLongMap lineage = members.get(workerId, dpRank);
    if (lineage == null) {
      unknownRemovals += count;
      return CkfOutcome.OK;
    }
    CkfOutcome first = CkfOutcome.OK;
    for (int start = 0; start < count; start += TOUCH_AHEAD) {
      int end = Math.min(count, start + TOUCH_AHEAD);
      ahead.touchRemovals(addressing, owners, table, lineage, hashes, start, end);
      for (int i = start; i < end; i++) {
        int l = lineage.indexOf(hashes[i]);
        if (l == LongLongMap.MISSING) {
          unknownRemovals++;
          continue;
        }
        long canonical = lineage.valueAt(l);
        lineage.removeAt(l);
        mappings--;
        CkfOutcome released = releaseOwner(canonical, ahead.removalPacked(i - start, canonical));
        if (first == CkfOutcome.OK) {
          first = released;
        }
      }
    }
    return first;
  }

  /** As {@link #removed(long, int, long[], int)} for the whole array. */
  public CkfOutcome removed(long workerId, int dpRank, long[] hashes) {
    return removed(workerId, dpRank, hashes, hashes.length);
  }

  private CkfOutcome releaseOwner(long canonical) {
    return releaseOwner(canonical, TouchAhead.NOT_PREPARED);
  }

  /**
   * As {@link #releaseOwner(long)} with {@code canonical} prepared by the table's addressing, or
   * {@link TouchAhead#NOT_PREPARED} to prepare it only if the table must change.
   */
  private CkfOutcome releaseOwner(long canonical, long packed) {
    int o = owners.indexOf(canonical);
    if (o == OwnersMap.MISSING) {
      invariantViolations++;
      return CkfOutcome.INDEXER_INVARIANT_VIOLATION;
    }
    long count = owners.ownersAt(o);
    if (count > 1) {
      owners.setOwnersAt(o, count - 1);
      return CkfOutcome.OK;
    }
    boolean resident = owners.residentAt(o);
    owners.removeAt(o);
    if (!resident) {
      return CkfOutcome.OK;
    }
    residentCount--;
    if (!table.removePrepared(packed == TouchAhead.NOT_PREPARED ? addressing.prepare(canonical) : packed, dirty)) {
      invariantViolations++;
      return CkfOutcome.INDEXER_INVARIANT_VIOLATION;
    }
    return CkfOutcome.OK;
  }

  /** Applies an all-domain Cleared event: every mapping of the member goes. Counts one pending event. */
  public CkfOutcome cleared(long workerId, int dpRank) {
    pendingEvents++;
    return resetRank(workerId, dpRank);
  }

  /**
   * Removes every mapping of one member (a rank reset command; not an event, so no pending count).
   * Sibling ranks and other workers are untouched.
   */
  public CkfOutcome resetRank(long workerId, int dpRank) {
    LongLongMap lineage = members.remove(workerId, dpRank);
    if (lineage == null) {
      return CkfOutcome.OK;
    }
    CkfOutcome first = CkfOutcome.OK;
    for (int i = 0; i < lineage.indexLimit(); i++) {
      if (lineage.isOccupied(i)) {
        CkfOutcome released = releaseOwner(lineage.valueAt(i));
        if (first == CkfOutcome.OK) {
          first = released;
        }
      }
    }
    mappings -= lineage.size();
    return first;
  }

  /** Removes every dp rank of {@code workerId} (command; no pending count). */
  public CkfOutcome removeWorker(long workerId) {
    CkfOutcome first = CkfOutcome.OK;
    for (MemberId m : members.sortedMembers()) {
      if (m.workerId() == workerId) {
        CkfOutcome r = resetRank(m.workerId(), m.dpRank());
        if (first == CkfOutcome.OK) {
          first = r;
        }
      }
    }
    return first;
  }

  /**
   * Replaces the lineages of the given members transactionally. A fresh table (RNG back at
   * {@code state0}) and ownership state are rebuilt off-side: retained members in sorted member order,
   * then the replacements in sorted member order. On success the new state is installed and every bucket
   * whose word differs from the old table is marked dirty against its old value, so the next delta
   * continues the sequence. On failure ({@code INVALID_TREE_DUMP} for duplicate members,
   * {@code OWNERSHIP_DEGREE_OVERFLOW}) the old state is untouched. Capacity omissions during the rebuild
   * are counted and reported as {@code CAPACITY_EXHAUSTED} with the new state installed.
   */
  public CkfOutcome replaceRanks(List<RankReplacement> replacements) {
    List<RankReplacement> sorted = RankRebuild.sortedDistinct(replacements);
    if (sorted == null) {
      return CkfOutcome.INVALID_TREE_DUMP;
    }
    RankRebuild rebuild =
        new RankRebuild(newTable(), new OwnersMap(Math.max(INITIAL_OWNERS_CAPACITY, owners.capacity())));
    if (!rebuild.build(members, sorted)) {
      ownershipOverflows++;
      return CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW;
    }
    rebuild.markChangedBuckets(table, dirty);
    table = rebuild.table;
    owners = rebuild.owners;
    members = rebuild.members;
    mappings = rebuild.mappings;
    residentCount = rebuild.resident;
    capacityFailures += rebuild.omissions;
    return rebuild.omissions == 0 ? CkfOutcome.OK : CkfOutcome.CAPACITY_EXHAUSTED;
  }

  // ---------------------------------------------------------------- publication

  /** True when the pending events reached {@code publish_every_n_events}: drain after this command. */
  public boolean shouldDrain() {
    return pendingEvents >= config.publishEveryNEvents();
  }

  /**
   * Drains the window: images of the touched buckets whose word differs from its value at first touch,
   * in first-touch order (net reversions dropped and counted). Resets pending events and the window.
   *
   * @return a {@link CkfDelta} {@code last → last+1} on the current lease; a {@link CkfSnapshot} at
   *     {@code last+1} when the delta would exceed {@link CkfDelta#MAX_IMAGES}; or a
   *     {@link NoPublication} reason (nothing pending, unchanged, no subscriber, fenced)
   */
  public CkfPublication drain() {
    if (pendingEvents == 0 && dirty.isEmpty()) {
      return NoPublication.NOTHING_PENDING;
    }
    pendingEvents = 0;
    return publisher.publish(table, dirty);
  }

  /**
   * Barrier snapshot for a new subscriber lease: drains the pending tail and publishes it on the old
   * lease (if one exists and the publisher is not fenced), then installs {@code newLease}, clears the
   * fence and returns a copy of all words at the resulting sequence {@code N}. The next delta is
   * {@code N → N+1}. A tail too large for one delta ({@link CkfDelta#MAX_IMAGES}) consumes its
   * sequence number without a delta (old-lease consumers see a gap and fail safe); the snapshot carries
   * its content. If the returned tail cannot be handed to the transport, report it with
   * {@link #deliveryFailed(CkfDelta)}, discard the returned snapshot and take the barrier again: the new
   * snapshot sits at the un-advanced sequence and covers the tail.
   *
   * @throws CkfPublicationException {@code SEQUENCE_EXHAUSTED} if the sequence is at {@code u64::MAX}
   *     or the publisher is fenced for exhaustion; nothing changes
   */
  public BarrierSnapshot snapshotAfterBarrier(long newLease) throws CkfPublicationException {
    publisher.checkBarrierAllowed();
    long[] words = table.copyWords();
    CkfPublication tail = drain();
    return publisher.installLease(newLease, tail, words);
  }

  /**
   * The transport could not take {@code delta}: fence the publisher ({@code DELIVERY_UNCERTAIN}) and,
   * if it is the latest delta, take its sequence back. Only a barrier snapshot clears the fence.
   */
  public void deliveryFailed(CkfDelta delta) {
    publisher.deliveryFailed(delta);
  }

  /** Drops the subscriber lease: materialization is disabled until the next barrier snapshot. */
  public void retireLease() {
    publisher.retireLease();
  }

  // ---------------------------------------------------------------- reads

  public CkfProducerConfig config() {
    return config;
  }

  public CkfFormat format() {
    return config.format();
  }

  public int bucketCount() {
    return table.bucketCount();
  }

  /** True if the table answers present for {@code canonicalHash} (false positives possible). */
  public boolean contains(long canonicalHash) {
    return table.contains(canonicalHash);
  }

  /** Current word of {@code bucket}. */
  public long word(int bucket) {
    return table.word(bucket);
  }

  /** A copy of all words. */
  public long[] copyWords() {
    return table.copyWords();
  }

  public long pendingEvents() {
    return pendingEvents;
  }

  /** Last published sequence (unsigned; starts at 0). */
  public long lastSequence() {
    return publisher.lastSequence();
  }

  /** The current subscriber lease (meaningful only while {@link #hasLease()}). */
  public long lease() {
    return publisher.lease();
  }

  /** True while a subscriber lease is installed. */
  public boolean hasLease() {
    return publisher.hasLease();
  }

  public @Nullable FenceReason fenceReason() {
    return publisher.fenceReason();
  }

  public long residentCount() {
    return residentCount;
  }

  public long mappingCount() {
    return mappings;
  }

  public long capacityFailures() {
    return capacityFailures;
  }

  /** Counter and gauge snapshot (allocates one record). */
  public CkfProducerStats stats() {
    return new CkfProducerStats(capacityFailures, parentNotFound, unknownRemovals, invalidBlockSequence,
        ownershipOverflows, invariantViolations, residentCount, mappings, owners.size(), members.nonEmptyCount(),
        table.occupiedSlots(), pendingEvents, dirty.touchedCount(), publisher.unchangedPublications(),
        publisher.netRevertedBuckets(), publisher.publishedDeltas(), publisher.publishedSnapshots(),
        publisher.droppedWithoutSubscriber(), publisher.oversizedDeltas(), publisher.lastSequence(),
        publisher.fenceReason() != null);
  }

  /**
   * Heap bytes held by the ownership maps (member directory, every lineage, the owners map), computed
   * from array lengths; excludes the table ({@code 8·B}) and the dirty window.
   */
  public long ownershipFootprintBytes() {
    return members.footprintBytes() + owners.footprintBytes();
  }

  // ---------------------------------------------------------------- package-private views for tests

  /** Owner count of a canonical hash, or -1 if it has none. */
  long ownersOf(long canonical) {
    int o = owners.indexOf(canonical);
    return o == OwnersMap.MISSING ? -1 : owners.ownersAt(o);
  }

  boolean isResident(long canonical) {
    int o = owners.indexOf(canonical);
    return o != OwnersMap.MISSING && owners.residentAt(o);
  }

  OwnersMap ownersMap() {
    return owners;
  }

  MemberDirectory memberDirectory() {
    return members;
  }

  DirtyWindow dirtyWindow() {
    return dirty;
  }

  CuckooTable table() {
    return table;
  }

  void forceOwnersForTest(long canonical, long count) {
    owners.setOwnersAt(owners.indexOf(canonical), count);
  }

  void forceLastSequenceForTest(long sequence) {
    publisher.forceLastSequenceForTest(sequence);
  }
}
