package dev.kvrelay.ckf.producer;

import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the pool actor. Canonical hash → {owners: u32, resident: bool}: a Robin
 * Hood open-addressing map like {@link LongLongMap} (arbitrary capacity, ≤ 90 % load, 25 % growth,
 * backward-shift deletion, chunked slots and incremental growth through {@link GrowingTable} with the same
 * index layout, allocation ahead and per-call migration bound), storing the owner count in an {@code int}
 * chunk (read as unsigned) and the resident flags in a parallel bitset chunk: 12⅛ bytes per slot. Canonical
 * hash 0 is kept outside the arrays. Lookups neither allocate nor lock.
 *
 * <p>Entries are addressed by index as in {@link LongLongMap}; index {@code capacity()} is hash 0 and
 * {@code capacity() + 1 + slot} an old-table slot while migrating.
 */
final class OwnersMap extends GrowingTable {
  static final int MISSING = -1;
  /** The largest owner count ({@code u32::MAX}). */
  static final long MAX_OWNERS = 0xFFFF_FFFFL;

  /**
   * Not thread-safe: confined to its map's thread. One table's chunked key, owner-count and resident-bit
   * arrays (chunk {@code c} of each covers slots {@code [c << shift, (c + 1) << shift)}).
   */
  private static final class Table {
    final long[][] keys;
    final int[][] owners;
    final long[][] bits;
    final int cap;
    final int shift;
    final int mask;

    /** A table of {@code cap} slots whose chunks are allocated later ({@link #allocateChunk}). */
    Table(int cap, int shift) {
      int chunks = ((cap - 1) >>> shift) + 1;
      this.keys = new long[chunks][];
      this.owners = new int[chunks][];
      this.bits = new long[chunks][];
      this.cap = cap;
      this.shift = shift;
      this.mask = (1 << shift) - 1;
    }

    Table(Table t) {
      this.keys = new long[t.keys.length][];
      this.owners = new int[t.keys.length][];
      this.bits = new long[t.keys.length][];
      for (int c = 0; c < keys.length; c++) {
        keys[c] = t.keys[c].clone();
        owners[c] = t.owners[c].clone();
        bits[c] = t.bits[c].clone();
      }
      this.cap = t.cap;
      this.shift = t.shift;
      this.mask = t.mask;
    }

    static Table allocated(int cap, int shift) {
      Table t = new Table(cap, shift);
      for (int c = 0; c < t.keys.length; c++) {
        t.allocateChunk(c, Math.min(1 << shift, cap - (c << shift)));
      }
      return t;
    }

    void allocateChunk(int c, int length) {
      keys[c] = new long[length];
      owners[c] = new int[length];
      bits[c] = new long[(length + 63) >>> 6];
    }

    long key(int i) {
      return keys[i >>> shift][i & mask];
    }

    int ownerCount(int i) {
      return owners[i >>> shift][i & mask];
    }

    void setOwnerCount(int i, int count) {
      owners[i >>> shift][i & mask] = count;
    }

    boolean bit(int i) {
      return (bits[i >>> shift][(i & mask) >>> 6] & (1L << i)) != 0;
    }

    void setBit(int i, boolean value) {
      long[] b = bits[i >>> shift];
      int w = (i & mask) >>> 6;
      if (value) {
        b[w] |= 1L << i;
      } else {
        b[w] &= ~(1L << i);
      }
    }

    int distance(int slot, long key) {
      int home = HashMix.home(key, cap);
      return slot >= home ? slot - home : slot - home + cap;
    }

    int find(long key) {
      long[][] k = keys;
      int i = HashMix.home(key, cap);
      for (int d = 0; ; d++) {
        long cur = k[i >>> shift][i & mask];
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
      long[][] k = keys;
      int[][] o = owners;
      int i = HashMix.home(key, cap);
      int d = 0;
      int landed = -1;
      while (true) {
        long[] kc = k[i >>> shift];
        int at = i & mask;
        long cur = kc[at];
        if (cur == 0) {
          kc[at] = key;
          o[i >>> shift][at] = ownerCount;
          setBit(i, resident);
          return landed < 0 ? i : landed;
        }
        int curDistance = distance(i, cur);
        if (curDistance < d) {
          if (landed < 0) {
            landed = i;
          }
          int[] oc = o[i >>> shift];
          int curOwners = oc[at];
          boolean curResident = bit(i);
          kc[at] = key;
          oc[at] = ownerCount;
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
      int next = hole + 1 == cap ? 0 : hole + 1;
      while (true) {
        long cur = key(next);
        if (cur == 0 || distance(next, cur) == 0) {
          break;
        }
        keys[hole >>> shift][hole & mask] = cur;
        setOwnerCount(hole, ownerCount(next));
        setBit(hole, bit(next));
        hole = next;
        next = next + 1 == cap ? 0 : next + 1;
      }
      keys[hole >>> shift][hole & mask] = 0;
      setOwnerCount(hole, 0);
      setBit(hole, false);
    }

    long bytes() {
      long b = 3 * HashMix.arrayBytes(keys.length, 4);
      for (int c = 0; c < keys.length; c++) {
        if (keys[c] != null) {
          b += HashMix.arrayBytes(keys[c].length, 8) + HashMix.arrayBytes(owners[c].length, 4)
              + HashMix.arrayBytes(bits[c].length, 8);
        }
      }
      return b;
    }
  }

  private Table table;
  private boolean hasZeroKey;
  private int zeroOwners;
  private boolean zeroResident;
  /** The table being drained, or null when not migrating. */
  private @Nullable Table old;
  /** The next table, its chunks allocated ahead, or null. */
  private @Nullable Table next;

  OwnersMap(int initialCapacity) {
    this(initialCapacity, MIGRATION_BUDGET, INCREMENTAL_FROM, CHUNK_SHIFT);
  }

  /** As {@link GrowingTable#GrowingTable}; tests use small values of all three. */
  OwnersMap(int initialCapacity, int migrationBudget, int incrementalFrom, int chunkShift) {
    super(migrationBudget, incrementalFrom, chunkShift);
    int cap = Math.max(8, initialCapacity);
    table = Table.allocated(cap, chunkShift);
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
    int c = i >>> chunkShift;
    int at = i & chunkMask;
    return t.keys[c][at] ^ t.owners[c][at] ^ t.bits[c][at >>> 6];
  }

  boolean isOccupied(int index) {
    return index == capacity ? hasZeroKey : keyAt(index) != 0;
  }

  long keyAt(int index) {
    if (index < capacity) {
      return table.key(index);
    }
    return index == capacity ? 0L : old().key(index - capacity - 1);
  }

  /** Owner count at {@code index}, unsigned. */
  long ownersAt(int index) {
    int raw;
    if (index < capacity) {
      raw = table.ownerCount(index);
    } else {
      raw = index == capacity ? zeroOwners : old().ownerCount(index - capacity - 1);
    }
    return Integer.toUnsignedLong(raw);
  }

  void setOwnersAt(int index, long count) {
    if (index < capacity) {
      table.setOwnerCount(index, (int) count);
    } else if (index == capacity) {
      zeroOwners = (int) count;
    } else {
      old().setOwnerCount(index - capacity - 1, (int) count);
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

  /** Heap bytes of the arrays (old table while migrating, next table's chunks allocated ahead) + overhead. */
  long footprintBytes() {
    Table o = old;
    Table n = next;
    return 64 + table.bytes() + (o == null ? 0 : o.bytes()) + (n == null ? 0 : n.bytes());
  }

  /** A deep copy (for tests; without the next table's chunks allocated ahead). */
  OwnersMap copy() {
    OwnersMap c = new OwnersMap(8, migrationBudget, incrementalFrom, chunkShift);
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
  void createNext(int cap) {
    next = new Table(cap, chunkShift);
  }

  @Override
  void allocateNextChunk(int c, int length) {
    Table n = next;
    if (n == null) {
      throw new IllegalStateException("no next table");
    }
    n.allocateChunk(c, length);
  }

  @Override
  void installNext() {
    Table n = next;
    if (n == null) {
      throw new IllegalStateException("no next table");
    }
    old = table;
    table = n;
    next = null;
  }

  @Override
  boolean moveOld(int slot) {
    Table o = old();
    long key = o.key(slot);
    if (key == 0) {
      return false;
    }
    table.place(key, o.ownerCount(slot), o.bit(slot));
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
    Table t = Table.allocated(cap, chunkShift);
    int n = arraySize;
    resetTo(cap);
    for (int i = 0; i < o.cap; i++) {
      long key = o.key(i);
      if (key != 0) {
        t.place(key, o.ownerCount(i), o.bit(i));
      }
    }
    arraySize = n;
    table = t;
  }
}
