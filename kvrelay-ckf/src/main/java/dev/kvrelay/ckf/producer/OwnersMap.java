package dev.kvrelay.ckf.producer;

import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the pool actor. Canonical hash → {owners: u32, resident: bool}: a Robin
 * Hood open-addressing map like {@link LongLongMap} (arbitrary capacity, ≤ 90 % load, 25 % growth,
 * backward-shift deletion, incremental growth through {@link GrowingTable} with the same index layout,
 * allocation ahead and per-call migration bound), storing the owner count in an {@code int[]} (read as
 * unsigned) and the resident flags in a parallel bitset: 12⅛ bytes per slot. Canonical hash 0 is kept
 * outside the arrays. Lookups neither allocate nor lock.
 *
 * <p>Entries are addressed by index as in {@link LongLongMap}; index {@code capacity()} is hash 0 and
 * {@code capacity() + 1 + slot} an old-table slot while migrating.
 */
final class OwnersMap extends GrowingTable<OwnersMap.Table> {
  static final int MISSING = -1;
  /** The largest owner count ({@code u32::MAX}). */
  static final long MAX_OWNERS = 0xFFFF_FFFFL;

  /** Not thread-safe: confined to its map's thread. One table's key, owner-count and resident-bit arrays. */
  static final class Table {
    final long[] keys;
    final int[] owners;
    final long[] bits;
    final int cap;

    Table(int cap) {
      this.keys = new long[cap];
      this.owners = new int[cap];
      this.bits = new long[(cap + 63) >>> 6];
      this.cap = cap;
    }

    Table(Table t) {
      this.keys = t.keys.clone();
      this.owners = t.owners.clone();
      this.bits = t.bits.clone();
      this.cap = t.cap;
    }

    boolean bit(int i) {
      return (bits[i >>> 6] & (1L << i)) != 0;
    }

    void setBit(int i, boolean value) {
      if (value) {
        bits[i >>> 6] |= 1L << i;
      } else {
        bits[i >>> 6] &= ~(1L << i);
      }
    }

    int distance(int slot, long key) {
      int home = HashMix.home(key, cap);
      return slot >= home ? slot - home : slot - home + cap;
    }

    int find(long key) {
      long[] k = keys;
      int i = HashMix.home(key, cap);
      for (int d = 0; ; d++) {
        long cur = k[i];
        if (cur == key) {
          return i;
        }
        if (cur == 0 || distance(i, cur) < d) {
          return MISSING;
        }
        if (++i == cap) {
          i = 0;
        }
      }
    }

    /** Places an absent key; returns the slot the given key landed in. */
    int place(long key, int ownerCount, boolean resident) {
      long[] k = keys;
      int[] o = owners;
      int i = HashMix.home(key, cap);
      int d = 0;
      int landed = -1;
      while (true) {
        long cur = k[i];
        if (cur == 0) {
          k[i] = key;
          o[i] = ownerCount;
          setBit(i, resident);
          return landed < 0 ? i : landed;
        }
        int curDistance = distance(i, cur);
        if (curDistance < d) {
          if (landed < 0) {
            landed = i;
          }
          int curOwners = o[i];
          boolean curResident = bit(i);
          k[i] = key;
          o[i] = ownerCount;
          setBit(i, resident);
          key = cur;
          ownerCount = curOwners;
          resident = curResident;
          d = curDistance;
        }
        if (++i == cap) {
          i = 0;
        }
        d++;
      }
    }

    /** Backward-shift deletion of slot {@code hole}. */
    void shiftOut(int hole) {
      long[] k = keys;
      int[] o = owners;
      int next = hole + 1 == cap ? 0 : hole + 1;
      while (true) {
        long cur = k[next];
        if (cur == 0 || distance(next, cur) == 0) {
          break;
        }
        k[hole] = cur;
        o[hole] = o[next];
        setBit(hole, bit(next));
        hole = next;
        next = next + 1 == cap ? 0 : next + 1;
      }
      k[hole] = 0;
      o[hole] = 0;
      setBit(hole, false);
    }

    static long bytes(int cap) {
      return HashMix.arrayBytes(cap, 8) + HashMix.arrayBytes(cap, 4) + HashMix.arrayBytes((cap + 63) >>> 6, 8);
    }
  }

  private Table table;
  private boolean hasZeroKey;
  private int zeroOwners;
  private boolean zeroResident;
  /** The table being drained, or null when not migrating. */
  private @Nullable Table old;

  OwnersMap(int initialCapacity) {
    this(initialCapacity, MIGRATION_BUDGET, INCREMENTAL_FROM);
  }

  /** As {@link GrowingTable#GrowingTable}; tests use small values of both. */
  OwnersMap(int initialCapacity, int migrationBudget, int incrementalFrom) {
    super(migrationBudget, incrementalFrom);
    int cap = Math.max(8, initialCapacity);
    table = new Table(cap);
    resetTo(cap);
  }

  /** The smallest capacity whose load limit holds {@code entries} (capped at the largest capacity). */
  static int capacityFor(long entries) {
    long cap = Math.max(8, entries + entries / 9 + 2);
    while (HashMix.maxFill((int) Math.min(cap, HashMix.MAX_CAPACITY)) < entries && cap < HashMix.MAX_CAPACITY) {
      cap++;
    }
    return (int) Math.min(cap, HashMix.MAX_CAPACITY);
  }

  /**
   * The capacity a map presized for {@code expected} entries starts at: room for 1¼·{@code expected} at the
   * 90 % limit, so the expected entries sit at ≤ 72 % load (the load right after a 25 % growth step) and the
   * map grows only beyond 1¼·{@code expected}. At 90 % load a Robin Hood table's probe and shift lengths are
   * about 2.4× those at 72 %: presizing to the limit itself made {@code PoolPipelineBenchmark} ~40 % slower.
   */
  static int presizedCapacityFor(long expected) {
    return capacityFor(expected > Long.MAX_VALUE / 2 ? expected : expected + expected / 4);
  }

  int size() {
    return arraySize + oldSize + (hasZeroKey ? 1 : 0);
  }

  int capacity() {
    return capacity;
  }

  /** One past the largest index: iterate {@code 0 ≤ i < indexLimit()} to see every entry exactly once. */
  int indexLimit() {
    return capacity + 1 + oldCapacity;
  }

  int indexOf(long key) {
    if (key == 0) {
      return hasZeroKey ? capacity : MISSING;
    }
    int i = table.find(key);
    Table o = old;
    if (i != MISSING || o == null) {
      return i;
    }
    int j = o.find(key);
    return j == MISSING ? MISSING : capacity + 1 + j;
  }

  /**
   * Reads the key, owner-count and resident-bit slots at {@code key}'s home and returns a value derived
   * from them, changing nothing: touching the homes of several independent keys before looking any of
   * them up lets their cache misses overlap.
   */
  long touch(long key) {
    Table t = table;
    int i = HashMix.home(key, capacity);
    return t.keys[i] ^ t.owners[i] ^ t.bits[i >>> 6];
  }

  boolean isOccupied(int index) {
    if (index < capacity) {
      return table.keys[index] != 0;
    }
    return index == capacity ? hasZeroKey : old().keys[index - capacity - 1] != 0;
  }

  long keyAt(int index) {
    if (index < capacity) {
      return table.keys[index];
    }
    return index == capacity ? 0L : old().keys[index - capacity - 1];
  }

  /** Owner count at {@code index}, unsigned. */
  long ownersAt(int index) {
    int raw;
    if (index < capacity) {
      raw = table.owners[index];
    } else {
      raw = index == capacity ? zeroOwners : old().owners[index - capacity - 1];
    }
    return Integer.toUnsignedLong(raw);
  }

  void setOwnersAt(int index, long count) {
    if (index < capacity) {
      table.owners[index] = (int) count;
    } else if (index == capacity) {
      zeroOwners = (int) count;
    } else {
      old().owners[index - capacity - 1] = (int) count;
    }
  }

  boolean residentAt(int index) {
    if (index < capacity) {
      return table.bit(index);
    }
    return index == capacity ? zeroResident : old().bit(index - capacity - 1);
  }

  void setResidentAt(int index, boolean resident) {
    if (index < capacity) {
      table.setBit(index, resident);
    } else if (index == capacity) {
      zeroResident = resident;
    } else {
      old().setBit(index - capacity - 1, resident);
    }
  }

  /**
   * Inserts {@code key}, which must be absent; returns its index (valid until the next insertion or
   * removal; other entries' indexes may move).
   */
  int insertAbsent(long key, long ownerCount, boolean resident) {
    if (key == 0) {
      hasZeroKey = true;
      zeroOwners = (int) ownerCount;
      zeroResident = resident;
      return capacity;
    }
    if (oldCapacity != 0) {
      migrate(migrationBudget);
    }
    if (arraySize + oldSize >= slowFrom) {
      slowInsert();
    }
    int at = table.place(key, (int) ownerCount, resident);
    arraySize++;
    return at;
  }

  void removeAt(int index) {
    if (index == capacity) {
      hasZeroKey = false;
      zeroOwners = 0;
      zeroResident = false;
      return;
    }
    if (index < capacity) {
      table.shiftOut(index);
      arraySize--;
    } else {
      old().shiftOut(index - capacity - 1);
      oldSize--;
    }
    if (oldCapacity != 0) {
      migrate(migrationBudget);
    }
  }

  /** Heap bytes of the arrays (old table while migrating, a table requested ahead) plus an overhead. */
  long footprintBytes() {
    return 56 + Table.bytes(capacity) + (oldCapacity == 0 ? 0 : Table.bytes(oldCapacity)) + aheadBytes();
  }

  /** A deep copy (for tests; without a table requested ahead). */
  OwnersMap copy() {
    OwnersMap c = new OwnersMap(8, migrationBudget, incrementalFrom);
    copyBookkeepingTo(c);
    c.table = new Table(table);
    c.hasZeroKey = hasZeroKey;
    c.zeroOwners = zeroOwners;
    c.zeroResident = zeroResident;
    Table o = old;
    c.old = o == null ? null : new Table(o);
    return c;
  }

  private Table old() {
    Table o = old;
    if (o == null) {
      throw new IllegalStateException("not migrating");
    }
    return o;
  }

  @Override
  Table newTable(int cap) {
    return new Table(cap);
  }

  @Override
  long tableBytes(int cap) {
    return Table.bytes(cap);
  }

  @Override
  void install(Table next) {
    old = table;
    table = next;
  }

  @Override
  boolean moveOld(int slot) {
    Table o = old();
    long key = o.keys[slot];
    if (key == 0) {
      return false;
    }
    table.place(key, o.owners[slot], o.bit(slot));
    o.shiftOut(slot);
    return true;
  }

  @Override
  void dropOld() {
    old = null;
  }

  @Override
  void rehash(int cap) {
    Table o = table;
    Table t = new Table(cap);
    int n = arraySize;
    resetTo(cap);
    for (int i = 0; i < o.cap; i++) {
      if (o.keys[i] != 0) {
        t.place(o.keys[i], o.owners[i], o.bit(i));
      }
    }
    arraySize = n;
    table = t;
  }
}
