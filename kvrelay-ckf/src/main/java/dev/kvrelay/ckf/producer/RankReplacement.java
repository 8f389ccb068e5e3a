package dev.kvrelay.ckf.producer;

/**
 * Not thread-safe: confined to the pool actor. The authoritative lineage of one member rebuilt from a
 * recovery tree dump, folded with the same Stored semantics as live ingest but into a standalone
 * lineage (parents resolve only within it); handed to {@link CkfProducer#replaceRanks(java.util.List)}.
 */
public final class RankReplacement {
  private final MemberId member;
  private final LongLongMap lineage = new LongLongMap(16);
  private final StoredPreparation preparation = new StoredPreparation();

  private RankReplacement(MemberId member) {
    this.member = member;
  }

  /** An empty replacement for member {@code (workerId, dpRank)}. */
  public static RankReplacement forMember(long workerId, int dpRank) {
    return new RankReplacement(new MemberId(workerId, dpRank));
  }

  /** The member whose lineage this replaces. */
  public MemberId member() {
    return member;
  }

  /**
   * Folds one Stored event of the dump into the lineage. On any error nothing changes.
   *
   * @return {@link CkfOutcome#OK}; {@code INVALID_TREE_DUMP} if the event names another member;
   *     {@code PARENT_BLOCK_NOT_FOUND} or {@code INVALID_BLOCK_SEQUENCE} as for live ingest
   */
  public CkfOutcome pushStored(StoredBatch event) {
    if (event.workerId() != member.workerId() || event.dpRank() != member.dpRank()) {
      return CkfOutcome.INVALID_TREE_DUMP;
    }
    if (event.size() == 0) {
      return CkfOutcome.OK;
    }
    CkfOutcome prepared = preparation.prepare(event, lineage);
    if (!prepared.isOk()) {
      return prepared;
    }
    for (int i = 0; i < event.size(); i++) {
      if (preparation.kind(i) == StoredPreparation.NEW_MAPPING) {
        lineage.insertAbsent(event.rawExternalHash(i), preparation.canonical(i));
      }
    }
    return CkfOutcome.OK;
  }

  /** Number of (external id → canonical hash) mappings collected so far. */
  public int mappingCount() {
    return lineage.size();
  }

  /** A private copy of the lineage, for installation. */
  LongLongMap lineageCopy() {
    return lineage.copy();
  }
}
