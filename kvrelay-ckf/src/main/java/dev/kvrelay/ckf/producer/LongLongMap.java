package dev.kvrelay.ckf.producer;

/**
 * Not thread-safe: confined to the pool actor. An open-addressing {@code long → long} map: Robin Hood
 * linear probing over an arbitrary (not power-of-two) capacity, ≤ 90 % load, 25 % growth,
 * tombstone-free backward-shift deletion. Key 0 is kept outside the arrays.
 *
 * <p>The slots are stored in fixed-size chunks and growth is incremental ({@link GrowingTable}): the next
 * table's chunks are allocated one per insertion just before the load limit, crossing it swaps tables and
 * leaves the entries in the old one, and every later insertion or removal first moves at most
 * {@link #MIGRATION_BUDGET} old slots into the new table. Until the old table is empty, a lookup that
 * misses the new table probes the old one; insertions go to the new table only. Both tables stay valid
 * Robin Hood tables throughout (a moved entry leaves the old one by backward shift). Lookups neither
 * allocate nor lock.
 *
 * <p>Entries are addressed by <em>index</em>: {@code 0 ≤ index < capacity()} for new-table slots,
 * {@code capacity()} for key 0 and {@code capacity() + 1 + slot} for an old-table slot while migrating;
 * every index below {@link #indexLimit()} may be read. An index is valid until the next insertion or
 * removal.
 */
final class LongLongMap extends GrowingTable {
  static final int MISSING = -1;

  private long[][] keys;
  private long[][] values;
  private boolean hasZeroKey;
  private long zeroValue;
  /** The table being drained (empty when not migrating). */
  private long[][] oldKeys = NONE;
  private long[][] oldValues = NONE;
  /** The next table, its chunks allocated ahead (empty when none). */
  private long[][] nextKeys = NONE;
  private long[][] nextValues = NONE;

  private static final long[][] NONE = new long[0][];

  LongLongMap(int initialCapacity) {
    this(initialCapacity, MIGRATION_BUDGET, INCREMENTAL_FROM, CHUNK_SHIFT);
  }

  /** As {@link GrowingTable#GrowingTable}; tests use small values of all three. */
  LongLongMap(int initialCapacity, int migrationBudget, int incrementalFrom, int chunkShift) {
    super(migrationBudget, incrementalFrom, chunkShift);
    int cap = Math.max(8, initialCapacity);
    keys = chunks(cap);
    values = chunks(cap);
    resetTo(cap);
  }

  private long[][] chunks(int cap) {
    long[][] a = new long[chunkCount(cap)][];
    for (int c = 0; c < a.length; c++) {
      a[c] = new long[chunkLength(cap, c)];
    }
    return a;
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
    int i = find(keys, capacity, key, chunkShift, chunkMask);
    if (i != MISSING || oldCapacity == 0) {
      return i;
    }
    int j = find(oldKeys, oldCapacity, key, chunkShift, chunkMask);
    return j == MISSING ? MISSING : capacity + 1 + j;
  }

  private static int find(long[][] k, int cap, long key, int shift, int mask) {
    int i = HashMix.home(key, cap);
    for (int d = 0; ; d++) {
      long cur = k[i >>> shift][i & mask];
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
    int c = i >>> chunkShift;
    int o = i & chunkMask;
    return keys[c][o] ^ values[c][o];
  }

  /** As {@link #touch(long)}, reading only the key slot (for a lookup that is expected to miss). */
  long touchKey(long key) {
    int i = HashMix.home(key, capacity);
    return keys[i >>> chunkShift][i & chunkMask];
  }

  /** True if {@code index} (below {@link #indexLimit()}) holds an entry. */
  boolean isOccupied(int index) {
    return index == capacity ? hasZeroKey : keyAt(index) != 0;
  }

  long keyAt(int index) {
    if (index < capacity) {
      return keys[index >>> chunkShift][index & chunkMask];
    }
    return index == capacity ? 0L : oldAt(oldKeys, index - capacity - 1);
  }

  long valueAt(int index) {
    if (index < capacity) {
      return values[index >>> chunkShift][index & chunkMask];
    }
    return index == capacity ? zeroValue : oldAt(oldValues, index - capacity - 1);
  }

  private long oldAt(long[][] a, int slot) {
    if (slot >= oldCapacity) {
      throw new IllegalStateException("no old-table slot " + slot + " of " + oldCapacity);
    }
    return a[slot >>> chunkShift][slot & chunkMask];
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
    place(keys, values, capacity, key, value, chunkShift, chunkMask);
    arraySize++;
  }

  private static void place(long[][] k, long[][] v, int cap, long key, long value, int shift, int mask) {
    int i = HashMix.home(key, cap);
    int d = 0;
    while (true) {
      long[] kc = k[i >>> shift];
      int o = i & mask;
      long cur = kc[o];
      if (cur == 0) {
        kc[o] = key;
        v[i >>> shift][o] = value;
        return;
      }
      int curDistance = distance(i, cur, cap);
      if (curDistance < d) {
        long[] vc = v[i >>> shift];
        long curValue = vc[o];
        kc[o] = key;
        vc[o] = value;
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
      shiftOut(keys, values, capacity, index, chunkShift, chunkMask);
      arraySize--;
    } else {
      int slot = index - capacity - 1;
      if (slot >= oldCapacity) {
        throw new IllegalStateException("no old-table slot " + slot + " of " + oldCapacity);
      }
      shiftOut(oldKeys, oldValues, oldCapacity, slot, chunkShift, chunkMask);
      oldSize--;
    }
    if (oldCapacity != 0) {
      migrate(migrationBudget);
    }
  }

  /** Backward-shift deletion of slot {@code hole}. */
  private static void shiftOut(long[][] k, long[][] v, int cap, int hole, int shift, int mask) {
    int next = hole + 1 == cap ? 0 : hole + 1;
    while (true) {
      long cur = k[next >>> shift][next & mask];
      if (cur == 0 || distance(next, cur, cap) == 0) {
        break;
      }
      k[hole >>> shift][hole & mask] = cur;
      v[hole >>> shift][hole & mask] = v[next >>> shift][next & mask];
      hole = next;
      next = next + 1 == cap ? 0 : next + 1;
    }
    k[hole >>> shift][hole & mask] = 0;
    v[hole >>> shift][hole & mask] = 0;
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

  /** A deep copy (without the next table's chunks allocated ahead; the copy allocates its own). */
  LongLongMap copy() {
    LongLongMap c = new LongLongMap(8, migrationBudget, incrementalFrom, chunkShift);
    copyBookkeepingTo(c);
    c.keys = deepCopy(keys);
    c.values = deepCopy(values);
    c.hasZeroKey = hasZeroKey;
    c.zeroValue = zeroValue;
    c.oldKeys = deepCopy(oldKeys);
    c.oldValues = deepCopy(oldValues);
    return c;
  }

  private static long[][] deepCopy(long[][] a) {
    long[][] c = new long[a.length][];
    for (int i = 0; i < a.length; i++) {
      c[i] = a[i].clone();
    }
    return c;
  }

  /**
   * Heap bytes of the backing arrays (both tables while migrating, and the next table's chunks allocated
   * ahead) plus a fixed object overhead.
   */
  long footprintBytes() {
    return 64 + bytes(keys) + bytes(values) + bytes(oldKeys) + bytes(oldValues) + bytes(nextKeys)
        + bytes(nextValues);
  }

  private static long bytes(long[][] a) {
    if (a.length == 0) {
      return 0;
    }
    long b = HashMix.arrayBytes(a.length, 4);
    for (long[] chunk : a) {
      b += chunk == null ? 0 : HashMix.arrayBytes(chunk.length, 8);
    }
    return b;
  }

  private static int distance(int slot, long key, int cap) {
    int home = HashMix.home(key, cap);
    return slot >= home ? slot - home : slot - home + cap;
  }

  @Override
  void createNext(int cap) {
    nextKeys = new long[chunkCount(cap)][];
    nextValues = new long[chunkCount(cap)][];
  }

  @Override
  void allocateNextChunk(int c, int length) {
    nextKeys[c] = new long[length];
    nextValues[c] = new long[length];
  }

  @Override
  void installNext() {
    oldKeys = keys;
    oldValues = values;
    keys = nextKeys;
    values = nextValues;
    nextKeys = NONE;
    nextValues = NONE;
  }

  @Override
  boolean moveOld(int slot) {
    long[][] ok = oldKeys;
    long key = ok[slot >>> chunkShift][slot & chunkMask];
    if (key == 0) {
      return false;
    }
    place(keys, values, capacity, key, oldValues[slot >>> chunkShift][slot & chunkMask], chunkShift, chunkMask);
    shiftOut(ok, oldValues, oldCapacity, slot, chunkShift, chunkMask);
    return true;
  }

  @Override
  void dropOld() {
    oldKeys = NONE;
    oldValues = NONE;
  }

  @Override
  void rehash(int cap) {
    long[][] ok = keys;
    long[][] ov = values;
    int oldCap = capacity;
    keys = chunks(cap);
    values = chunks(cap);
    resetTo(cap);
    for (int i = 0; i < oldCap; i++) {
      long key = ok[i >>> chunkShift][i & chunkMask];
      if (key != 0) {
        place(keys, values, cap, key, ov[i >>> chunkShift][i & chunkMask], chunkShift, chunkMask);
        arraySize++;
      }
    }
  }
}
