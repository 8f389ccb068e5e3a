package dev.kvrelay.ckf.producer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CuckooTable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * <p><b>Cost</b>: event application does not allocate once the reusable scratch arrays and maps have
 * grown to the working set (amortized growth: a grow rehashes the whole map at once). The owners map starts
 * presized for {@link CkfProducerConfig#expectedUniqueBlocks()}, so it does not grow (nor stall the actor)
 * until the pool holds more unique blocks than expected. Publication allocates the image arrays of each
 * delta or snapshot.
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
  /** "No prepared address yet": a prepared address is never 0 (its fingerprint field is non-zero). */
  private static final long NOT_PREPARED = 0L;

  private final CkfProducerConfig config;
  private final CkfAddressing addressing;
  private final DirtyWindow dirty;
  private final StoredPreparation preparation = new StoredPreparation();
  /** Per-block prepared CKF addresses of the current event (scratch, grown to the largest batch). */
  private long[] packedScratch = new long[64];
  /** Canonical hashes of the current removal chunk (scratch). */
  private final long[] removalCanonical = new long[TOUCH_AHEAD];
  /** Prepared CKF addresses of the current removal chunk (scratch). */
  private final long[] removalPacked = new long[TOUCH_AHEAD];
  /**
   * Sink of the touch-ahead reads, so that the JIT cannot drop them; its value means nothing. See
   * {@link #touchBlock}.
   */
  @SuppressWarnings("UnusedVariable") // written only, on purpose: the store keeps the touch reads alive
  private long touchSink;
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
  private long unchangedPublications;
  private long netRevertedBuckets;
  private long publishedDeltas;
  private long publishedSnapshots;
  private long droppedWithoutSubscriber;
  private long oversizedDeltas;

  private long lastSequence;
  private boolean hasLease;
  private long lease;
  private @Nullable FenceReason fence;

  private CkfProducer(CkfProducerConfig config) {
    this.config = config;
    this.addressing = CkfAddressing.of(config.format());
    this.table = newTable();
    this.dirty = new DirtyWindow(table.bucketCount());
    this.owners = new OwnersMap(
        Math.max(INITIAL_OWNERS_CAPACITY, OwnersMap.capacityFor(config.expectedUniqueBlocks())));
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
    CkfOutcome prepared = preparation.prepare(event, lineage);
    if (prepared != CkfOutcome.OK) {
      return countRejection(prepared);
    }
    prepareAddresses(lineage, event, n);
    for (int i = 0; i < n; i++) {
      if (preparation.kind(i) == StoredPreparation.NEW_MAPPING) {
        int o = owners.indexOf(preparation.canonical(i));
        if (o != OwnersMap.MISSING && owners.ownersAt(o) == OwnersMap.MAX_OWNERS) {
          return countRejection(CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW);
        }
      }
    }
    if (lineage == null) {
      lineage = members.getOrCreate(worker, rank);
    }
    long[] packed = packedScratch;
    CkfOutcome first = CkfOutcome.OK;
    for (int i = 0; i < n; i++) {
      if (i + TOUCH_AHEAD < n) {
        touchBlock(lineage, event, packed, i + TOUCH_AHEAD);
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

  /**
   * Prepares every block's CKF address into {@link #packedScratch} and touches the state of the first
   * {@link #TOUCH_AHEAD} blocks (the rest are touched one window ahead while applying).
   */
  private void prepareAddresses(@Nullable LongLongMap lineage, StoredBatch event, int n) {
    if (packedScratch.length < n) {
      packedScratch = new long[Math.max(n, packedScratch.length + (packedScratch.length >>> 1))];
    }
    long[] packed = packedScratch;
    for (int i = 0; i < n; i++) {
      packed[i] = addressing.prepare(preparation.canonical(i));
    }
    int ahead = Math.min(n, TOUCH_AHEAD);
    for (int i = 0; i < ahead; i++) {
      touchBlock(lineage, event, packed, i);
    }
  }

  /**
   * Memory-level parallelism: reads (without changing anything) the owners-map home slot and both
   * candidate buckets of block {@code i}, and for a new mapping its lineage home slot, so that the
   * independent cache misses of many blocks are in flight together before the dependent updates need
   * them. Java has no prefetch; the reads feed {@link #touchSink} so that they are not eliminated.
   */
  private void touchBlock(@Nullable LongLongMap lineage, StoredBatch event, long[] packed, int i) {
    long sink = owners.touch(preparation.canonical(i)) ^ table.touch(packed[i]);
    if (lineage != null && preparation.kind(i) == StoredPreparation.NEW_MAPPING) {
      sink ^= lineage.touch(event.rawExternalHash(i));
    }
    touchSink ^= sink;
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
    int added = addOwner(owners, table, canonical, packed, dirty);
    if (added == OWNER_OVERFLOW) {
      // Only reachable through a duplicate canonical hash inside one batch; the block is skipped.
      ownershipOverflows++;
      return CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW;
    }
    lineage.insertAbsent(external, canonical);
    mappings++;
    if (added == OMITTED) {
      capacityFailures++;
      return CkfOutcome.CAPACITY_EXHAUSTED;
    }
    if (added == ADMITTED) {
      residentCount++;
    }
    return CkfOutcome.OK;
  }

  /** {@link #addOwner} result: the hash already was resident. */
  private static final int ALREADY_RESIDENT = 0;
  /** {@link #addOwner} result: the hash was not resident and the insert succeeded. */
  private static final int ADMITTED = 1;
  /** {@link #addOwner} result: the hash was not resident and the insert failed (capacity omission). */
  private static final int OMITTED = 2;
  /** {@link #addOwner} result: the owner count is at {@code u32::MAX}; nothing changed. */
  private static final int OWNER_OVERFLOW = 3;

  /**
   * The one rule for adding an owner to a canonical hash, shared by live ingest and the off-side rebuild
   * of {@link #replaceRanks}: the owner count grows by one (entry created at 1), and a hash that is not
   * resident is inserted with relocation; an omission leaves the ownership committed and non-resident.
   * {@code packed} is {@code canonical} prepared by the table's addressing.
   */
  private static int addOwner(OwnersMap owners, CuckooTable table, long canonical, long packed,
      CuckooTable.WriteObserver observer) {
    int o = owners.indexOf(canonical);
    if (o == OwnersMap.MISSING) {
      o = owners.insertAbsent(canonical, 1, false);
    } else {
      long count = owners.ownersAt(o);
      if (count == OwnersMap.MAX_OWNERS) {
        return OWNER_OVERFLOW;
      }
      owners.setOwnersAt(o, count + 1);
      if (owners.residentAt(o)) {
        return ALREADY_RESIDENT;
      }
    }
    // The table insert moves no owners entry, so index o is still valid.
    if (table.insertPrepared(packed, observer)) {
      owners.setResidentAt(o, true);
      return ADMITTED;
    }
    return OMITTED;
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
      touchRemovals(lineage, hashes, start, end);
      for (int i = start; i < end; i++) {
        int l = lineage.indexOf(hashes[i]);
        if (l == LongLongMap.MISSING) {
          unknownRemovals++;
          continue;
        }
        long canonical = lineage.valueAt(l);
        lineage.removeAt(l);
        mappings--;
        // A key found now was found by the touch pass too, with the same value; the check is a guard.
        long packed = removalCanonical[i - start] == canonical ? removalPacked[i - start] : NOT_PREPARED;
        CkfOutcome released = releaseOwner(canonical, packed);
        if (first == CkfOutcome.OK) {
          first = released;
        }
      }
    }
    return first;
  }

  /**
   * Memory-level parallelism for one removal chunk, changing nothing: touches every id's lineage home
   * slot, then resolves each known id (lookups now overlap) and touches its owners-map home slot and both
   * candidate buckets, recording the canonical hash and its prepared address for the updates.
   */
  private void touchRemovals(LongLongMap lineage, long[] hashes, int start, int end) {
    long sink = 0;
    for (int i = start; i < end; i++) {
      sink ^= lineage.touch(hashes[i]);
    }
    for (int i = start; i < end; i++) {
      int l = lineage.indexOf(hashes[i]);
      if (l == LongLongMap.MISSING) {
        removalCanonical[i - start] = 0;
        removalPacked[i - start] = NOT_PREPARED;
        continue;
      }
      long canonical = lineage.valueAt(l);
      long packed = addressing.prepare(canonical);
      removalCanonical[i - start] = canonical;
      removalPacked[i - start] = packed;
      sink ^= owners.touch(canonical) ^ table.touch(packed);
    }
    touchSink ^= sink;
  }

  /** As {@link #removed(long, int, long[], int)} for the whole array. */
  public CkfOutcome removed(long workerId, int dpRank, long[] hashes) {
    return removed(workerId, dpRank, hashes, hashes.length);
  }

  private CkfOutcome releaseOwner(long canonical) {
    return releaseOwner(canonical, NOT_PREPARED);
  }

  /**
   * As {@link #releaseOwner(long)} with {@code canonical} prepared by the table's addressing, or
   * {@link #NOT_PREPARED} to prepare it only if the table must change.
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
    if (!table.removePrepared(packed == NOT_PREPARED ? addressing.prepare(canonical) : packed, dirty)) {
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
    for (int i = 0; i <= lineage.capacity(); i++) {
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
    List<RankReplacement> sorted = new ArrayList<>(replacements);
    sorted.sort((x, y) -> x.member().compareTo(y.member()));
    Set<MemberId> replaced = new HashSet<>();
    for (RankReplacement r : sorted) {
      if (!replaced.add(r.member())) {
        return CkfOutcome.INVALID_TREE_DUMP;
      }
    }
    Rebuild rebuild = new Rebuild(newTable(), new OwnersMap(Math.max(INITIAL_OWNERS_CAPACITY, owners.capacity())));
    MemberDirectory nextMembers = new MemberDirectory();
    for (MemberId m : members.sortedMembers()) {
      if (replaced.contains(m)) {
        continue;
      }
      LongLongMap lineage = members.get(m.workerId(), m.dpRank());
      if (lineage != null && !rebuild.install(lineage)) {
        ownershipOverflows++;
        return CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW;
      }
      nextMembers.put(m.workerId(), m.dpRank(), lineage == null ? new LongLongMap(16) : lineage);
    }
    for (RankReplacement r : sorted) {
      if (r.mappingCount() == 0) {
        continue;
      }
      LongLongMap lineage = r.lineageCopy();
      if (!rebuild.install(lineage)) {
        ownershipOverflows++;
        return CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW;
      }
      nextMembers.put(r.member().workerId(), r.member().dpRank(), lineage);
    }
    CuckooTable old = table;
    CuckooTable next = rebuild.table;
    for (int b = 0; b < old.bucketCount(); b++) {
      long before = old.word(b);
      if (next.word(b) != before) {
        dirty.bucketWritten(b, before);
      }
    }
    table = next;
    owners = rebuild.owners;
    members = nextMembers;
    mappings = rebuild.mappings;
    residentCount = rebuild.resident;
    capacityFailures += rebuild.omissions;
    return rebuild.omissions == 0 ? CkfOutcome.OK : CkfOutcome.CAPACITY_EXHAUSTED;
  }

  /** Confined to the pool actor: off-side state of a rank replacement. */
  private static final class Rebuild {
    final CuckooTable table;
    final OwnersMap owners;
    long mappings;
    long resident;
    long omissions;

    Rebuild(CuckooTable table, OwnersMap owners) {
      this.table = table;
      this.owners = owners;
    }

    /** Adds every mapping of {@code lineage}; false on owner overflow. */
    boolean install(LongLongMap lineage) {
      for (int i = 0; i <= lineage.capacity(); i++) {
        if (!lineage.isOccupied(i)) {
          continue;
        }
        mappings++;
        long canonical = lineage.valueAt(i);
        int added = addOwner(owners, table, canonical, table.addressing().prepare(canonical),
            CuckooTable.IGNORE_WRITES);
        if (added == OWNER_OVERFLOW) {
          return false;
        }
        if (added == ADMITTED) {
          resident++;
        } else if (added == OMITTED) {
          omissions++;
        }
      }
      return true;
    }
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
    int changed = dirty.changedCount(table);
    netRevertedBuckets += dirty.touchedCount() - changed;
    pendingEvents = 0;
    if (fence != null) {
      dirty.clear();
      return NoPublication.FENCED;
    }
    if (changed == 0) {
      dirty.clear();
      unchangedPublications++;
      return NoPublication.UNCHANGED;
    }
    if (!hasLease) {
      dirty.clear();
      droppedWithoutSubscriber++;
      return NoPublication.NO_SUBSCRIBER;
    }
    if (lastSequence == -1L) {
      dirty.clear();
      fence = FenceReason.SEQUENCE_EXHAUSTED;
      return NoPublication.FENCED;
    }
    if (changed > CkfDelta.MAX_IMAGES) {
      dirty.clear();
      oversizedDeltas++;
      publishedSnapshots++;
      lastSequence++;
      return new CkfSnapshot(lease, lastSequence, table.copyWords());
    }
    int[] buckets = new int[changed];
    long[] words = new long[changed];
    dirty.copyChanged(table, buckets, words);
    dirty.clear();
    long base = lastSequence;
    lastSequence = base + 1;
    publishedDeltas++;
    return new CkfDelta(lease, base, lastSequence, buckets, words);
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
    if (lastSequence == -1L || fence == FenceReason.SEQUENCE_EXHAUSTED) {
      throw new CkfPublicationException(FenceReason.SEQUENCE_EXHAUSTED,
          "publication sequence exhausted at " + Long.toUnsignedString(lastSequence));
    }
    long[] words = table.copyWords();
    CkfPublication tail = drain();
    lease = newLease;
    hasLease = true;
    fence = null;
    publishedSnapshots++;
    return new BarrierSnapshot(tail instanceof CkfDelta d ? d : null, new CkfSnapshot(newLease, lastSequence, words));
  }

  /**
   * The transport could not take {@code delta}: fence the publisher ({@code DELIVERY_UNCERTAIN}) and,
   * if it is the latest delta, take its sequence back. Only a barrier snapshot clears the fence.
   */
  public void deliveryFailed(CkfDelta delta) {
    if (delta.sequence() == lastSequence) {
      lastSequence = delta.baseSequence();
    }
    fence = FenceReason.DELIVERY_UNCERTAIN;
  }

  /** Drops the subscriber lease: materialization is disabled until the next barrier snapshot. */
  public void retireLease() {
    hasLease = false;
    lease = 0;
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
    return lastSequence;
  }

  /** The current subscriber lease (meaningful only while {@link #hasLease()}). */
  public long lease() {
    return lease;
  }

  /** True while a subscriber lease is installed. */
  public boolean hasLease() {
    return hasLease;
  }

  public @Nullable FenceReason fenceReason() {
    return fence;
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
        table.occupiedSlots(), pendingEvents, dirty.touchedCount(), unchangedPublications, netRevertedBuckets,
        publishedDeltas, publishedSnapshots, droppedWithoutSubscriber, oversizedDeltas, lastSequence, fence != null);
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
    lastSequence = sequence;
  }
}
