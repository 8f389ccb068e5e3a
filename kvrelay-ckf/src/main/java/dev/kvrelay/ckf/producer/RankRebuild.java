package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.CuckooTable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the pool actor. The off-side state of one
 * {@link CkfProducer#replaceRanks(List)}: a fresh table (RNG at {@code state0}), owners map and member
 * directory rebuilt from the retained lineages and the replacements with the live ingest's owner rule. The
 * producer installs it only when the rebuild succeeded; until then its own state is untouched.
 */
final class RankRebuild {
  final CuckooTable table;
  final OwnersMap owners;
  final MemberDirectory members = new MemberDirectory();
  long mappings;
  long resident;
  long omissions;

  RankRebuild(CuckooTable table, OwnersMap owners) {
    this.table = table;
    this.owners = owners;
  }

  /**
   * {@code replacements} in sorted member order, or null if two of them name the same member (the
   * caller's {@code INVALID_TREE_DUMP}). Changes nothing.
   */
  static @Nullable List<RankReplacement> sortedDistinct(List<RankReplacement> replacements) {
    List<RankReplacement> sorted = new ArrayList<>(replacements);
    sorted.sort((x, y) -> x.member().compareTo(y.member()));
    Set<MemberId> replaced = new HashSet<>();
    for (RankReplacement r : sorted) {
      if (!replaced.add(r.member())) {
        return null;
      }
    }
    return sorted;
  }

  /**
   * Rebuilds from the members of {@code current} that {@code sorted} does not replace, in sorted member
   * order, then from the non-empty replacements of {@code sorted} (as {@link #sortedDistinct} returns
   * them) in that order. False on owner overflow; {@code current} is only read.
   */
  boolean build(MemberDirectory current, List<RankReplacement> sorted) {
    Set<MemberId> replaced = new HashSet<>();
    for (RankReplacement r : sorted) {
      replaced.add(r.member());
    }
    for (MemberId m : current.sortedMembers()) {
      if (replaced.contains(m)) {
        continue;
      }
      LongLongMap lineage = current.get(m.workerId(), m.dpRank());
      if (lineage != null && !install(lineage)) {
        return false;
      }
      members.put(m.workerId(), m.dpRank(), lineage == null ? new LongLongMap(16) : lineage);
    }
    for (RankReplacement r : sorted) {
      if (r.mappingCount() == 0) {
        continue;
      }
      LongLongMap lineage = r.lineageCopy();
      if (!install(lineage)) {
        return false;
      }
      members.put(r.member().workerId(), r.member().dpRank(), lineage);
    }
    return true;
  }

  /** Marks in {@code dirty}, against its word in {@code old}, every bucket whose rebuilt word differs. */
  void markChangedBuckets(CuckooTable old, DirtyWindow dirty) {
    for (int b = 0; b < old.bucketCount(); b++) {
      long before = old.word(b);
      if (table.word(b) != before) {
        dirty.bucketWritten(b, before);
      }
    }
  }

  /** Adds every mapping of {@code lineage}; false on owner overflow. */
  private boolean install(LongLongMap lineage) {
    for (int i = 0; i < lineage.indexLimit(); i++) {
      if (!lineage.isOccupied(i)) {
        continue;
      }
      mappings++;
      long canonical = lineage.valueAt(i);
      int added = OwnerRule.addOwner(owners, table, canonical, table.addressing().prepare(canonical),
          CuckooTable.IGNORE_WRITES);
      if (added == OwnerRule.OWNER_OVERFLOW) {
        return false;
      }
      if (added == OwnerRule.ADMITTED) {
        resident++;
      } else if (added == OwnerRule.OMITTED) {
        omissions++;
      }
    }
    return true;
  }
}
