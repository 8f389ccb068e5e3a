package dev.kvrelay.ckf.producer;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the pool actor. Maps member {@code (worker_id u64, dp_rank u32)} to
 * that member's lineage (external id → canonical hash) with Robin Hood open addressing and
 * backward-shift deletion; a {@code null} lineage marks an empty slot. Lookups do not allocate.
 */
final class MemberDirectory {
  private static final int INITIAL_LINEAGE_CAPACITY = 16;

  private long[] workers;
  private int[] ranks;
  private @Nullable LongLongMap[] lineages;
  private int capacity;
  private int size;

  MemberDirectory() {
    allocate(16);
  }

  private void allocate(int cap) {
    workers = new long[cap];
    ranks = new int[cap];
    lineages = new LongLongMap[cap];
    capacity = cap;
    size = 0;
  }

  /** Members with a lineage object, including lineages emptied by Removed events. */
  int size() {
    return size;
  }

  /**
   * Members holding at least one mapping. A lineage emptied by Removed events stays installed (its
   * arrays are reused when the member stores again) but no longer counts as a member. Scans the
   * directory; for statistics only.
   */
  int nonEmptyCount() {
    int n = 0;
    for (int i = 0; i < capacity; i++) {
      LongLongMap l = lineages[i];
      if (l != null && l.size() != 0) {
        n++;
      }
    }
    return n;
  }

  int capacity() {
    return capacity;
  }

  /** The lineage of a member, or null if the member holds nothing. */
  @Nullable LongLongMap get(long worker, int rank) {
    int i = indexOf(worker, rank);
    return i < 0 ? null : lineages[i];
  }

  /** The lineage of a member, created empty if absent. */
  LongLongMap getOrCreate(long worker, int rank) {
    int i = indexOf(worker, rank);
    if (i >= 0) {
      return lineages[i];
    }
    LongLongMap lineage = new LongLongMap(INITIAL_LINEAGE_CAPACITY);
    put(worker, rank, lineage);
    return lineage;
  }

  /** Installs {@code lineage} for a member that must be absent. */
  void put(long worker, int rank, LongLongMap lineage) {
    if ((size + 1) * 2 > capacity) {
      grow();
    }
    place(worker, rank, lineage);
    size++;
  }

  /** Removes a member; returns its lineage, or null if absent. */
  @Nullable LongLongMap remove(long worker, int rank) {
    int i = indexOf(worker, rank);
    if (i < 0) {
      return null;
    }
    LongLongMap removed = lineages[i];
    int hole = i;
    int next = (hole + 1) & (capacity - 1);
    while (lineages[next] != null && distance(next) != 0) {
      workers[hole] = workers[next];
      ranks[hole] = ranks[next];
      lineages[hole] = lineages[next];
      hole = next;
      next = (next + 1) & (capacity - 1);
    }
    workers[hole] = 0;
    ranks[hole] = 0;
    lineages[hole] = null;
    size--;
    return removed;
  }

  /** All members, sorted by (worker unsigned, rank unsigned). Allocates; not for hot paths. */
  List<MemberId> sortedMembers() {
    List<MemberId> out = new ArrayList<>(size);
    for (int i = 0; i < capacity; i++) {
      if (lineages[i] != null) {
        out.add(new MemberId(workers[i], ranks[i]));
      }
    }
    out.sort(null);
    return out;
  }

  /** Heap bytes of the directory and every lineage. */
  long footprintBytes() {
    long bytes = 48 + HashMix.arrayBytes(capacity, 8) + HashMix.arrayBytes(capacity, 4)
        + HashMix.arrayBytes(capacity, 4);
    for (int i = 0; i < capacity; i++) {
      LongLongMap l = lineages[i];
      if (l != null) {
        bytes += l.footprintBytes();
      }
    }
    return bytes;
  }

  private int indexOf(long worker, int rank) {
    int mask = capacity - 1;
    int i = home(worker, rank, mask);
    for (int d = 0; ; d++) {
      if (lineages[i] == null) {
        return -1;
      }
      if (workers[i] == worker && ranks[i] == rank) {
        return i;
      }
      if (distance(i) < d) {
        return -1;
      }
      i = (i + 1) & mask;
    }
  }

  private void place(long worker, int rank, LongLongMap lineage) {
    int mask = capacity - 1;
    int i = home(worker, rank, mask);
    int d = 0;
    while (true) {
      LongLongMap cur = lineages[i];
      if (cur == null) {
        workers[i] = worker;
        ranks[i] = rank;
        lineages[i] = lineage;
        return;
      }
      int curDistance = distance(i);
      if (curDistance < d) {
        long w = workers[i];
        int r = ranks[i];
        workers[i] = worker;
        ranks[i] = rank;
        lineages[i] = lineage;
        worker = w;
        rank = r;
        lineage = cur;
        d = curDistance;
      }
      i = (i + 1) & mask;
      d++;
    }
  }

  private int distance(int slot) {
    int mask = capacity - 1;
    return (slot - home(workers[slot], ranks[slot], mask)) & mask;
  }

  private static int home(long worker, int rank, int mask) {
    return (int) (HashMix.mix(worker ^ HashMix.mix(Integer.toUnsignedLong(rank) + 1)) >>> 32) & mask;
  }

  private void grow() {
    long[] oldWorkers = workers;
    int[] oldRanks = ranks;
    LongLongMap[] oldLineages = lineages;
    allocate(capacity * 2);
    for (int i = 0; i < oldLineages.length; i++) {
      LongLongMap l = oldLineages[i];
      if (l != null) {
        place(oldWorkers[i], oldRanks[i], l);
        size++;
      }
    }
  }
}
