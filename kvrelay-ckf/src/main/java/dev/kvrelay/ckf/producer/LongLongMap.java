package dev.kvrelay.ckf.producer;

import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the pool actor. An open-addressing {@code long → long} map: Robin Hood
 * linear probing over an arbitrary (not power-of-two) capacity, ≤ 90 % load, 25 % growth,
 * tombstone-free backward-shift deletion. Key 0 is kept outside the arrays.
 *
 * <p>Growth is incremental: crossing the load limit allocates the bigger table and leaves the entries in
 * the old one, and every later insertion or removal first moves at most {@link #MIGRATION_BUDGET} old slots
 * (empty or occupied) into the new table. Until the old table is empty, a lookup that misses the new table
 * probes the old one; insertions go to the new table only. Both tables stay valid Robin Hood tables
 * throughout (a moved entry leaves the old one by backward shift). The new table's own allocation is still
 * one call (the JVM zeroes it).
 *
 * <p>Entries are addressed by <em>index</em>: {@code 0 ≤ index < capacity()} for new-table slots,
 * {@code capacity()} for key 0 and {@code capacity() + 1 + slot} for an old-table slot while migrating;
 * every index below {@link #indexLimit()} may be read. An index is valid until the next insertion or
 * removal.
 */
final class LongLongMap {
  static final int MISSING = -1;
  /** Old-table slots one insertion or removal moves at most while migrating. */
  static final int MIGRATION_BUDGET = 128;
  /**
   * The smallest capacity that grows incrementally: below it one full rehash (≤ 16 Ki slots, well under
   * 1 ms) keeps the layout, and so the iteration order and the producer's output, of the eager scheme.
   */
  static final int INCREMENTAL_FROM = 1 << 14;

  private long[] keys;
  private long[] values;
  private int capacity;
  private int maxFill;
  private int arraySize;
  private boolean hasZeroKey;
  private long zeroValue;
  /** The table being drained, or null when not migrating. */
  private long @Nullable [] oldKeys;
  private long[] oldValues = EMPTY;
  private int oldCapacity;
  private int oldSize;
  private int cursor;
  /** Old-table slots the last migrating call moved or skipped (for tests of the per-call bound). */
  int lastMigrationWork;

  private static final long[] EMPTY = new long[0];

  private final int migrationBudget;
  private final int incrementalFrom;

  LongLongMap(int initialCapacity) {
    this(initialCapacity, MIGRATION_BUDGET, INCREMENTAL_FROM);
  }

  /**
   * A map moving at most {@code migrationBudget} old slots per mutating call once its capacity is at least
   * {@code incrementalFrom} (smaller tables grow by one full rehash); tests use small values of both. A
   * growth step leaves room for ~0.225·C insertions before the next and a migration costs ≤ 1.9·C units, so
   * a budget ≥ 9 always finishes in time; with a smaller one, an insertion that reaches the next load limit
   * mid-migration finishes it in that call.
   */
  LongLongMap(int initialCapacity, int migrationBudget, int incrementalFrom) {
    if (migrationBudget < 1) {
      throw new IllegalArgumentException("migration budget must be positive: " + migrationBudget);
    }
    this.migrationBudget = migrationBudget;
    this.incrementalFrom = incrementalFrom;
    allocate(Math.max(8, initialCapacity));
  }

  private void allocate(int cap) {
    keys = new long[cap];
    values = new long[cap];
    capacity = cap;
    maxFill = HashMix.maxFill(cap);
    arraySize = 0;
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
    return oldKeys == null ? capacity + 1 : capacity + 1 + oldCapacity;
  }

  /** True while entries remain in the old table. */
  boolean migrating() {
    return oldKeys != null;
  }

  /** Index of {@code key}, or {@link #MISSING}. */
  int indexOf(long key) {
    if (key == 0) {
      return hasZeroKey ? capacity : MISSING;
    }
    int i = find(keys, capacity, key);
    if (i != MISSING || oldKeys == null) {
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
    if (index < capacity) {
      return keys[index] != 0;
    }
    return index == capacity ? hasZeroKey : old()[index - capacity - 1] != 0;
  }

  long keyAt(int index) {
    if (index < capacity) {
      return keys[index];
    }
    return index == capacity ? 0L : old()[index - capacity - 1];
  }

  long valueAt(int index) {
    if (index < capacity) {
      return values[index];
    }
    return index == capacity ? zeroValue : oldValues[index - capacity - 1];
  }

  /** Inserts {@code key}, which must be absent. */
  void insertAbsent(long key, long value) {
    if (key == 0) {
      hasZeroKey = true;
      zeroValue = value;
      return;
    }
    if (oldKeys != null) {
      migrate(migrationBudget);
    }
    if (arraySize + oldSize >= maxFill) {
      if (oldKeys != null) {
        int before = lastMigrationWork;
        migrate(Integer.MAX_VALUE);
        lastMigrationWork += before;
      }
      if (capacity < incrementalFrom) {
        rehash();
      } else {
        startGrowth();
      }
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
      shiftOut(old(), oldValues, oldCapacity, index - capacity - 1);
      oldSize--;
    }
    if (oldKeys != null) {
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

  /** A deep copy. */
  LongLongMap copy() {
    LongLongMap c = new LongLongMap(8, migrationBudget, incrementalFrom);
    c.keys = keys.clone();
    c.values = values.clone();
    c.capacity = capacity;
    c.maxFill = maxFill;
    c.arraySize = arraySize;
    c.hasZeroKey = hasZeroKey;
    c.zeroValue = zeroValue;
    long[] ok = oldKeys;
    if (ok != null) {
      c.oldKeys = ok.clone();
      c.oldValues = oldValues.clone();
      c.oldCapacity = oldCapacity;
      c.oldSize = oldSize;
      c.cursor = cursor;
    }
    return c;
  }

  /** Heap bytes of the backing arrays (both tables while migrating) plus a fixed object overhead. */
  long footprintBytes() {
    long old = oldKeys == null ? 0 : HashMix.arrayBytes(oldCapacity, 8) * 2;
    return 48 + HashMix.arrayBytes(keys.length, 8) + HashMix.arrayBytes(values.length, 8) + old;
  }

  private static int distance(int slot, long key, int cap) {
    int home = HashMix.home(key, cap);
    return slot >= home ? slot - home : slot - home + cap;
  }

  private long[] old() {
    long[] ok = oldKeys;
    if (ok == null) {
      throw new IllegalStateException("not migrating");
    }
    return ok;
  }

  /** The eager growth step: every old entry re-placed, in slot order, within this call. */
  private void rehash() {
    long[] ok = keys;
    long[] ov = values;
    allocate(HashMix.grownCapacity(capacity));
    for (int i = 0; i < ok.length; i++) {
      if (ok[i] != 0) {
        place(keys, values, capacity, ok[i], ov[i]);
        arraySize++;
      }
    }
  }

  private void startGrowth() {
    oldKeys = keys;
    oldValues = values;
    oldCapacity = capacity;
    oldSize = arraySize;
    cursor = 0;
    allocate(HashMix.grownCapacity(capacity));
    if (oldSize == 0) {
      endMigration();
    }
  }

  /**
   * Moves old-table slots at the cursor into the new table, {@code budget} units at most (a move or a
   * skipped empty slot each count one). A move shifts later entries back into the cursor's slot, never
   * below it (slots below the cursor are empty and nothing is inserted into the old table), so one pass of
   * the cursor drains the table.
   */
  private void migrate(int budget) {
    long[] ok = old();
    long[] ov = oldValues;
    int work = 0;
    while (work < budget && cursor < oldCapacity) {
      long key = ok[cursor];
      if (key != 0) {
        place(keys, values, capacity, key, ov[cursor]);
        arraySize++;
        shiftOut(ok, ov, oldCapacity, cursor);
        oldSize--;
      } else {
        cursor++;
      }
      work++;
    }
    lastMigrationWork = work;
    if (cursor >= oldCapacity) {
      if (oldSize != 0) {
        throw new IllegalStateException("migration left " + oldSize + " entries behind");
      }
      endMigration();
    }
  }

  private void endMigration() {
    oldKeys = null;
    oldValues = EMPTY;
    oldCapacity = 0;
    oldSize = 0;
    cursor = 0;
  }
}
