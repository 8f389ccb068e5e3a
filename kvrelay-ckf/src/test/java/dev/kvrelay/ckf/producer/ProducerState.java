package dev.kvrelay.ckf.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A structural copy of everything a producer holds except telemetry counters: words, every member's
 * lineage, the owners map (count and resident flag), the dirty window in first-touch order, and the
 * gauges derived from them. Two captures are equal iff that state is equal.
 */
record ProducerState(
    List<Long> words,
    Map<MemberId, Map<Long, Long>> lineages,
    Map<Long, List<Object>> owners,
    List<List<Long>> dirty,
    long residentCount,
    long mappings,
    int occupiedSlots,
    long lastSequence) {

  static ProducerState capture(CkfProducer p) {
    List<Long> words = new ArrayList<>();
    for (long w : p.copyWords()) {
      words.add(w);
    }
    Map<MemberId, Map<Long, Long>> lineages = new TreeMap<>();
    MemberDirectory members = p.memberDirectory();
    for (MemberId m : members.sortedMembers()) {
      lineages.put(m, lineageOf(members.get(m.workerId(), m.dpRank())));
    }
    Map<Long, List<Object>> owners = new TreeMap<>(Long::compareUnsigned);
    OwnersMap o = p.ownersMap();
    for (int i = 0; i < o.indexLimit(); i++) {
      if (o.isOccupied(i)) {
        owners.put(o.keyAt(i), List.of(o.ownersAt(i), o.residentAt(i)));
      }
    }
    List<List<Long>> dirty = new ArrayList<>();
    DirtyWindow d = p.dirtyWindow();
    for (int k = 0; k < d.touchedCount(); k++) {
      dirty.add(List.of((long) d.touchedBucket(k), d.originalAt(k)));
    }
    return new ProducerState(words, lineages, owners, dirty, p.residentCount(), p.mappingCount(),
        p.table().occupiedSlots(), p.lastSequence());
  }

  static Map<Long, Long> lineageOf(LongLongMap l) {
    Map<Long, Long> out = new TreeMap<>(Long::compareUnsigned);
    for (int i = 0; i < l.indexLimit(); i++) {
      if (l.isOccupied(i)) {
        out.put(l.keyAt(i), l.valueAt(i));
      }
    }
    return out;
  }
}
