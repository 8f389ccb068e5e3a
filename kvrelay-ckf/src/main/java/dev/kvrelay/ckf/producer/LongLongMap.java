package dev.kvrelay.ckf.producer;

/**
 * Not thread-safe: confined to the pool actor. An open-addressing {@code long → long} map: Robin Hood
 * linear probing over an arbitrary (not power-of-two) capacity, ≤ 90 % load, 25 % growth,
 * tombstone-free backward-shift deletion. Key 0 is kept outside the arrays.
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
final class LongLongMap extends GrowingTable<long[][]> {
  static final int MISSING = -1;

  private long[] keys;
  private long[] values;
  private boolean hasZeroKey;
  private long zeroValue;
  /** The table being drained (empty when not migrating). */
  private long[] oldKeys = EMPTY;
  private long[] oldValues = EMPTY;

  private static final long[] EMPTY = new long[0];

  LongLongMap(int initialCapacity) {
    this(initialCapacity, MIGRATION_BUDGET, INCREMENTAL_FROM);
  }

  /** As {@link GrowingTable#GrowingTable}; tests use small values of both. */
  LongLongMap(int initialCapacity, int migrationBudget, int incrementalFrom) {
    super(migrationBudget, incrementalFrom);
    int cap = Math.max(8, initialCapacity);
    keys = new long[cap];
    values = new long[cap];
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
    int i = find(keys, capacity, key);
    if (i != MISSING || oldCapacity == 0) {
      return i;
    }
    int j = find(oldKeys, oldCapacity, key);
    return j == MISSING ? MISSING : capacity + 1 + j;
  }

  private static int find(long[] k, int cap, long key) {
    int i = HashMix.home(key, cap);
    for (int d = 0; ; d++) {
      long cur = k[i];
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
    int i = HashMix.home(key, capacity);
    return keys[i] ^ values[i];
  }

  /** As {@link #touch(long)}, reading only the key slot (for a lookup that is expected to miss). */
  long touchKey(long key) {
    return keys[HashMix.home(key, capacity)];
  }

  /** True if {@code index} (below {@link #indexLimit()}) holds an entry. */
  boolean isOccupied(int index) {
    return index == capacity ? hasZeroKey : keyAt(index) != 0;
  }

  long keyAt(int index) {
    if (index < capacity) {
      return keys[index];
    }
    return index == capacity ? 0L : oldKeys[oldSlot(index)];
  }

  long valueAt(int index) {
    if (index < capacity) {
      return values[index];
    }
    return index == capacity ? zeroValue : oldValues[oldSlot(index)];
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
    place(keys, values, capacity, key, value);
    arraySize++;
  }

  private static void place(long[] k, long[] v, int cap, long key, long value) {
    int i = HashMix.home(key, cap);
    int d = 0;
    while (true) {
      long cur = k[i];
      if (cur == 0) {
        k[i] = key;
        v[i] = value;
        return;
      }
      int curDistance = distance(i, cur, cap);
      if (curDistance < d) {
        long curValue = v[i];
        k[i] = key;
        v[i] = value;
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
      shiftOut(keys, values, capacity, index);
      arraySize--;
    } else {
      shiftOut(oldKeys, oldValues, oldCapacity, oldSlot(index));
      oldSize--;
    }
    if (oldCapacity != 0) {
      migrate(migrationBudget);
    }
  }

  /** Backward-shift deletion of slot {@code hole}. */
  private static void shiftOut(long[] k, long[] v, int cap, int hole) {
    int next = hole + 1 == cap ? 0 : hole + 1;
    while (true) {
      long cur = k[next];
      if (cur == 0 || distance(next, cur, cap) == 0) {
        break;
      }
      k[hole] = cur;
      v[hole] = v[next];
      hole = next;
      next = next + 1 == cap ? 0 : next + 1;
    }
    k[hole] = 0;
    v[hole] = 0;
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
    c.keys = keys.clone();
    c.values = values.clone();
    c.hasZeroKey = hasZeroKey;
    c.zeroValue = zeroValue;
    c.oldKeys = oldKeys.clone();
    c.oldValues = oldValues.clone();
    return c;
  }

  /**
   * Heap bytes of the backing arrays (both tables while migrating, and a table requested ahead) plus a
   * fixed object overhead.
   */
  long footprintBytes() {
    long old = oldCapacity == 0 ? 0 : tableBytes(oldCapacity);
    return 48 + HashMix.arrayBytes(keys.length, 8) + HashMix.arrayBytes(values.length, 8) + old + aheadBytes();
  }

  private static int distance(int slot, long key, int cap) {
    int home = HashMix.home(key, cap);
    return slot >= home ? slot - home : slot - home + cap;
  }

  @Override
  long[][] newTable(int cap) {
    return new long[][] {new long[cap], new long[cap]};
  }

  @Override
  long tableBytes(int cap) {
    return 2 * HashMix.arrayBytes(cap, 8);
  }

  @Override
  void install(long[][] next) {
    oldKeys = keys;
    oldValues = values;
    keys = next[0];
    values = next[1];
  }

  @Override
  boolean moveOld(int slot) {
    long[] ok = oldKeys;
    long key = ok[slot];
    if (key == 0) {
      return false;
    }
    place(keys, values, capacity, key, oldValues[slot]);
    shiftOut(ok, oldValues, oldCapacity, slot);
    return true;
  }

  @Override
  void dropOld() {
    oldKeys = EMPTY;
    oldValues = EMPTY;
  }

  @Override
  void rehash(int cap) {
    long[] ok = keys;
    long[] ov = values;
    keys = new long[cap];
    values = new long[cap];
    resetTo(cap);
    for (int i = 0; i < ok.length; i++) {
      if (ok[i] != 0) {
        place(keys, values, cap, ok[i], ov[i]);
        arraySize++;
      }
    }
  }
}
