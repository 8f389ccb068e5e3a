package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.CuckooTable;

/**
 * Stateless, so thread-safe itself; the maps and tables it changes are confined to the pool actor. The one
 * rule for adding an owner to a canonical hash ({@code ckf-cbi1.md} §3.4), shared by live ingest
 * ({@link CkfProducer#stored}) and the off-side rebuild of {@link CkfProducer#replaceRanks}.
 */
final class OwnerRule {
  /** {@link #addOwner} result: the hash already was resident. */
  static final int ALREADY_RESIDENT = 0;
  /** {@link #addOwner} result: the hash was not resident and the insert succeeded. */
  static final int ADMITTED = 1;
  /** {@link #addOwner} result: the hash was not resident and the insert failed (capacity omission). */
  static final int OMITTED = 2;
  /** {@link #addOwner} result: the owner count is at {@code u32::MAX}; nothing changed. */
  static final int OWNER_OVERFLOW = 3;

  private OwnerRule() {}

  /**
   * The owner count of {@code canonical} grows by one (entry created at 1), and a hash that is not
   * resident is inserted with relocation; an omission leaves the ownership committed and non-resident.
   * {@code packed} is {@code canonical} prepared by the table's addressing.
   */
  static int addOwner(OwnersMap owners, CuckooTable table, long canonical, long packed,
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
}
