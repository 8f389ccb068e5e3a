package dev.kvrelay.ckf.producer;

/**
 * Not thread-safe: confined to the pool actor. An open-addressing {@code long → long} map: Robin Hood
 * linear probing over an arbitrary (not power-of-two) capacity, ≤ 90 % load, 25 % growth,
 * tombstone-free backward-shift deletion. Key 0 is kept outside the arrays. A slot's key and value are
 * adjacent in one array ({@code [2·slot]} and {@code [2·slot + 1]}), so that the probe and shift walks and the
 * touch-ahead find a slot's value in the cache line of its key (separate key and value arrays cost a second
 * miss per slot walked).
 *
 * <p>Growth is incremental ({@link GrowingTable}): the bigger table is allocated ahead on the common pool
 * shortly before the load limit, crossing it swaps tables and leaves the entries in the old one, and every
 * later insertion or removal first moves at most {@link #MIGRATION_BUDGET} old slots into the new table.
 * Until the old table is empty, a lookup that misses the new table probes the old one; insertions go to
 * the new table only. Both tables stay valid Robin Hood tables throughout (a moved entry leaves the old one
 * by backward shift). Lookups neither allocate nor lock.
 *
 * <p>Entries are addressed by <em>index</em>: {@code 0 ≤ index < capacity()} for new-table slots,
 * {@code capacity()} for key 0 and {@code capacity() + 1 + slot} for an old-table slot while migrating;
 * every index below {@link #indexLimit()} may be read. An index is valid until the next insertion or
 * removal.
 */
final class LongLongMap extends GrowingTable<long[]> {
  static final int MISSING = -1;
  /** The largest capacity: a table's slots array holds two longs per slot. */
  static final int MAX_SLOTS = (Integer.MAX_VALUE - 16) / 2;
  /** The longest run {@link #touchRun} touches: 64 slots, 16 cache lines. */
  static final int MAX_RUN_SLOTS = 64;

  /** Slot {@code i}'s key at {@code [2i]} (0 = empty), its value at {@code [2i + 1]}. */
  private long[] slots;
  private boolean hasZeroKey;
  private long zeroValue;
  /** The table being drained (empty when not migrating), laid out as {@link #slots}. */
  private long[] oldSlots = EMPTY;

  private static final long[] EMPTY = new long[0];

  LongLongMap(int initialCapacity) {
    this(initialCapacity, MIGRATION_BUDGET, INCREMENTAL_FROM);
  }

  /** As {@link GrowingTable#GrowingTable}; tests use small values of both. */
  LongLongMap(int initialCapacity, int migrationBudget, int incrementalFrom) {
    super(migrationBudget, incrementalFrom);
    int cap = Math.max(8, initialCapacity);
    slots = newSlots(cap);
    resetTo(cap);
  }

  int size() {
    return arraySize + oldSize + (hasZeroKey ? 1 : 0);
  }

  /** Slots in the (new) table; index {@code capacity()} is the zero-key entry. */
  int capacity() {
    return capacity;
  }

  /** One past the largest index: iterate {@code 0 ≤ i < indexLimit()} to see every entry exactly once. */
  int indexLimit() {
    return capacity + 1 + oldCapacity;
  }

  /** Index of {@code key}, or {@link #MISSING}. */
  int indexOf(long key) {
    if (key == 0) {
      return hasZeroKey ? capacity : MISSING;
    }
    int i = find(slots, capacity, key);
    if (i != MISSING || oldCapacity == 0) {
      return i;
    }
    int j = find(oldSlots, oldCapacity, key);
    return j == MISSING ? MISSING : capacity + 1 + j;
  }

  private static int find(long[] s, int cap, long key) {
    int i = HashMix.home(key, cap);
    for (int d = 0; ; d++) {
      long cur = s[2 * i];
      if (cur == key) {
        return i;
      }
      if (cur == 0 || distance(i, cur, cap) < d) {
        return MISSING;
      }
      if (++i == cap) {
        i = 0;
      }
    }
  }

  /**
   * Reads the key and value slots at {@code key}'s home and returns a value derived from them, changing
   * nothing: touching the homes of several independent keys before looking any of them up lets their
   * cache misses overlap.
   */
  long touch(long key) {
    int i = 2 * HashMix.home(key, capacity);
    return slots[i] ^ slots[i + 1];
  }

  /**
   * As {@link #touch(long)} for a key about to be inserted or removed: reads one word of every cache line
   * of the slots from {@code key}'s home over the length an insertion walk (to the first empty slot) is
   * expected to take at the current load, {@code ½·(1 + 1/(1−α)²)} slots for linear probing (≈ 26 at 86 %,
   * 50 at 90 %; at most {@link #MAX_RUN_SLOTS}), so that the walk's misses are in flight with those of the
   * other touched keys instead of following one another. Does not wrap around the table's end.
   */
  long touchRun(long key) {
    long[] s = slots;
    int from = 2 * HashMix.home(key, capacity);
    double free = 1.0 - (double) arraySize / capacity;
    int run = free <= 0 ? MAX_RUN_SLOTS : (int) Math.min(MAX_RUN_SLOTS, 0.5 * (1 + 1 / (free * free)));
    int to = Math.min(s.length, from + 2 * run);
    long x = s[from + 1];
    for (int i = from; i < to; i += 8) {
      x ^= s[i];
    }
    return x;
  }

  /** As {@link #touch(long)}, reading only the key slot (for a lookup that is expected to miss). */
  long touchKey(long key) {
    return slots[2 * HashMix.home(key, capacity)];
  }

  /** True if {@code index} (below {@link #indexLimit()}) holds an entry. */
  boolean isOccupied(int index) {
    return index == capacity ? hasZeroKey : keyAt(index) != 0;
  }

  long keyAt(int index) {
    if (index < capacity) {
      return slots[2 * index];
    }
    return index == capacity ? 0L : oldSlots[2 * oldSlot(index)];
  }

  long valueAt(int index) {
    if (index < capacity) {
      return slots[2 * index + 1];
    }
    return index == capacity ? zeroValue : oldSlots[2 * oldSlot(index) + 1];
  }

  private int oldSlot(int index) {
    int slot = index - capacity - 1;
    if (slot >= oldCapacity) {
      throw new IllegalStateException("no old-table slot " + slot + " of " + oldCapacity);
    }
    return slot;
  }

  /** Inserts {@code key}, which must be absent. */
  void insertAbsent(long key, long value) {
    if (key == 0) {
      hasZeroKey = true;
      zeroValue = value;
      return;
    }
    if (oldCapacity != 0) {
      migrate(migrationBudget);
    }
    if (arraySize + oldSize >= slowFrom) {
      slowInsert();
    }
    place(slots, capacity, key, value);
    arraySize++;
  }

  private static void place(long[] s, int cap, long key, long value) {
    int i = HashMix.home(key, cap);
    int d = 0;
    while (true) {
      long cur = s[2 * i];
      if (cur == 0) {
        s[2 * i] = key;
        s[2 * i + 1] = value;
        return;
      }
      int curDistance = distance(i, cur, cap);
      if (curDistance < d) {
        long curValue = s[2 * i + 1];
        s[2 * i] = key;
        s[2 * i + 1] = value;
        key = cur;
        value = curValue;
        d = curDistance;
      }
      if (++i == cap) {
        i = 0;
      }
      d++;
    }
  }

  /** Removes the entry at a valid, occupied {@code index}. */
  void removeAt(int index) {
    if (index == capacity) {
      hasZeroKey = false;
      zeroValue = 0;
      return;
    }
    if (index < capacity) {
      shiftOut(slots, capacity, index);
      arraySize--;
    } else {
      shiftOut(oldSlots, oldCapacity, oldSlot(index));
      oldSize--;
    }
    if (oldCapacity != 0) {
      migrate(migrationBudget);
    }
  }

  /** Backward-shift deletion of slot {@code hole}. */
  private static void shiftOut(long[] s, int cap, int hole) {
    int next = hole + 1 == cap ? 0 : hole + 1;
    while (true) {
      long cur = s[2 * next];
      if (cur == 0 || distance(next, cur, cap) == 0) {
        break;
      }
      s[2 * hole] = cur;
      s[2 * hole + 1] = s[2 * next + 1];
      hole = next;
      next = next + 1 == cap ? 0 : next + 1;
    }
    s[2 * hole] = 0;
    s[2 * hole + 1] = 0;
  }

  /** Removes {@code key} if present; returns whether it was. */
  boolean remove(long key) {
    int i = indexOf(key);
    if (i == MISSING) {
      return false;
    }
    removeAt(i);
    return true;
  }

  /** A deep copy (without a table requested ahead; the copy requests its own). */
  LongLongMap copy() {
    LongLongMap c = new LongLongMap(8, migrationBudget, incrementalFrom);
    copyBookkeepingTo(c);
    c.slots = slots.clone();
    c.hasZeroKey = hasZeroKey;
    c.zeroValue = zeroValue;
    c.oldSlots = oldSlots.clone();
    return c;
  }

  /**
   * Heap bytes of the backing arrays (both tables while migrating, and a table requested ahead) plus a
   * fixed object overhead.
   */
  long footprintBytes() {
    long old = oldCapacity == 0 ? 0 : tableBytes(oldCapacity);
    return 48 + HashMix.arrayBytes(slots.length, 8) + old + aheadBytes();
  }

  private static int distance(int slot, long key, int cap) {
    int home = HashMix.home(key, cap);
    return slot >= home ? slot - home : slot - home + cap;
  }

  /** A zeroed slots array of {@code cap} slots. */
  private static long[] newSlots(int cap) {
    if (cap > MAX_SLOTS) {
      throw new IllegalStateException("open-addressing map is full at " + MAX_SLOTS + " slots");
    }
    return new long[2 * cap];
  }

  @Override
  long[] newTable(int cap) {
    return newSlots(cap);
  }

  @Override
  long tableBytes(int cap) {
    return HashMix.arrayBytes(2L * cap, 8);
  }

  @Override
  void install(long[] next) {
    oldSlots = slots;
    slots = next;
  }

  @Override
  boolean moveOld(int slot) {
    long[] os = oldSlots;
    long key = os[2 * slot];
    if (key == 0) {
      return false;
    }
    place(slots, capacity, key, os[2 * slot + 1]);
    shiftOut(os, oldCapacity, slot);
    return true;
  }

  @Override
  void dropOld() {
    oldSlots = EMPTY;
  }

  @Override
  void rehash(int cap) {
    long[] os = slots;
    slots = newSlots(cap);
    resetTo(cap);
    for (int i = 0; i < os.length; i += 2) {
      if (os[i] != 0) {
        place(slots, cap, os[i], os[i + 1]);
        arraySize++;
      }
    }
  }
}
