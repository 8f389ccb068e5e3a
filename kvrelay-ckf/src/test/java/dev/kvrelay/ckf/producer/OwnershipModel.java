package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.hashing.SequenceHash;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Exact ownership model in plain HashMaps, written from ckf-cbi1.md §3.4 (decision (b)): lineages per
 * member and an owner count per canonical hash. It knows nothing about the physical table.
 */
final class OwnershipModel {
  final Map<MemberId, Map<Long, Long>> lineages = new HashMap<>();
  final Map<Long, Long> owners = new HashMap<>();

  /** Applies a Stored event; returns OK or the rejection the spec demands (nothing changes then). */
  CkfOutcome stored(MemberId m, StoredBatch e) {
    Map<Long, Long> fresh = new HashMap<>();
    CkfOutcome r = fold(lineages.getOrDefault(m, Map.of()), e, fresh);
    if (r != CkfOutcome.OK) {
      return r;
    }
    for (Map.Entry<Long, Long> n : fresh.entrySet()) {
      if (owners.getOrDefault(n.getValue(), 0L) == 0xFFFF_FFFFL) {
        return CkfOutcome.OWNERSHIP_DEGREE_OVERFLOW;
      }
    }
    if (!fresh.isEmpty()) {
      Map<Long, Long> lineage = lineages.computeIfAbsent(m, k -> new HashMap<>());
      fresh.forEach((ext, c) -> {
        lineage.put(ext, c);
        owners.merge(c, 1L, Long::sum);
      });
    }
    return CkfOutcome.OK;
  }

  /**
   * Stored semantics against {@code lineage}: fills {@code fresh} with the new (external → canonical)
   * mappings of the batch, or returns the rejection.
   */
  static CkfOutcome fold(Map<Long, Long> lineage, StoredBatch e, Map<Long, Long> fresh) {
    if (e.size() == 0) {
      return CkfOutcome.OK;
    }
    Long parent = null;
    if (e.hasParent()) {
      parent = lineage.get(e.parentHash());
      if (parent == null) {
        return CkfOutcome.PARENT_BLOCK_NOT_FOUND;
      }
    } else if (e.hasStartPosition() && e.startPosition() != 0) {
      return CkfOutcome.INVALID_BLOCK_SEQUENCE;
    }
    for (int i = 0; i < e.size(); i++) {
      long c = parent == null ? e.tokensHash(i) : SequenceHash.child(parent, e.tokensHash(i));
      parent = c;
      long ext = e.externalHash(i);
      Long known = lineage.containsKey(ext) ? lineage.get(ext) : fresh.get(ext);
      if (known != null && known != c) {
        fresh.clear();
        return CkfOutcome.INVALID_BLOCK_SEQUENCE;
      }
      if (known == null) {
        fresh.put(ext, c);
      }
    }
    return CkfOutcome.OK;
  }

  void removed(MemberId m, long[] ids) {
    Map<Long, Long> lineage = lineages.get(m);
    if (lineage == null) {
      return;
    }
    for (long ext : ids) {
      Long c = lineage.remove(ext);
      if (c != null) {
        release(c);
      }
    }
  }

  void cleared(MemberId m) {
    Map<Long, Long> lineage = lineages.remove(m);
    if (lineage != null) {
      lineage.values().forEach(this::release);
    }
  }

  void replace(MemberId m, Map<Long, Long> lineage) {
    cleared(m);
    if (!lineage.isEmpty()) {
      lineages.put(m, new HashMap<>(lineage));
      lineage.values().forEach(c -> owners.merge(c, 1L, Long::sum));
    }
  }

  private void release(long c) {
    long left = owners.get(c) - 1;
    if (left == 0) {
      owners.remove(c);
    } else {
      owners.put(c, left);
    }
  }

  long mappings() {
    return lineages.values().stream().mapToLong(Map::size).sum();
  }

  /** Non-empty lineages, sorted, for comparison with {@link ProducerState#lineages()}. */
  Map<MemberId, Map<Long, Long>> nonEmptyLineages() {
    Map<MemberId, Map<Long, Long>> out = new TreeMap<>();
    lineages.forEach((m, l) -> {
      if (!l.isEmpty()) {
        Map<Long, Long> sorted = new TreeMap<>(Long::compareUnsigned);
        sorted.putAll(l);
        out.put(m, sorted);
      }
    });
    return out;
  }
}
