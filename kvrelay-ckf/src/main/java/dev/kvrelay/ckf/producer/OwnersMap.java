package dev.kvrelay.ckf.producer;

/**
 * Not thread-safe: confined to the pool actor. Canonical hash → {owners: u32, resident: bool}: a Robin
 * Hood open-addressing map like
 * {@link LongLongMap} (arbitrary capacity, ≤ 90 % load, 25 % growth, backward-shift deletion), storing
 * the owner count in an {@code int[]} (read as unsigned) and the resident flags in a parallel bitset:
 * 12⅛ bytes per slot. Canonical hash 0 is kept outside the arrays.
 *
 * <p>Entries are addressed by index as in {@link LongLongMap}; index {@code capacity()} is hash 0.
 */
final class OwnersMap {
  static final int MISSING = -1;
  /** The largest owner count ({@code u32::MAX}). */
  static final long MAX_OWNERS = 0xFFFF_FFFFL;

  private long[] keys;
  private int[] owners;
  private long[] residentBits;
  private int capacity;
  private int maxFill;
  private int arraySize;
  private boolean hasZeroKey;
  private int zeroOwners;
  private boolean zeroResident;

  OwnersMap(int initialCapacity) {
    allocate(Math.max(8, initialCapacity));
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

  private void allocate(int cap) {
    keys = new long[cap];
    owners = new int[cap];
    residentBits = new long[(cap + 63) >>> 6];
    capacity = cap;
    maxFill = HashMix.maxFill(cap);
    arraySize = 0;
  }

  int size() {
    return arraySize + (hasZeroKey ? 1 : 0);
  }

  int capacity() {
    return capacity;
  }

  int indexOf(long key) {
    if (key == 0) {
      return hasZeroKey ? capacity : MISSING;
    }
    long[] k = keys;
    int cap = capacity;
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

  /**
   * Reads the key, owner-count and resident-bit slots at {@code key}'s home and returns a value derived
   * from them, changing nothing: touching the homes of several independent keys before looking any of
   * them up lets their cache misses overlap.
   */
  long touch(long key) {
    int i = HashMix.home(key, capacity);
    return keys[i] ^ owners[i] ^ residentBits[i >>> 6];
  }

  boolean isOccupied(int index) {
    return index == capacity ? hasZeroKey : keys[index] != 0;
  }

  long keyAt(int index) {
    return index == capacity ? 0L : keys[index];
  }

  /** Owner count at {@code index}, unsigned. */
  long ownersAt(int index) {
    return Integer.toUnsignedLong(index == capacity ? zeroOwners : owners[index]);
  }

  void setOwnersAt(int index, long count) {
    if (index == capacity) {
      zeroOwners = (int) count;
    } else {
      owners[index] = (int) count;
    }
  }

  boolean residentAt(int index) {
    return index == capacity ? zeroResident : bit(index);
  }

  void setResidentAt(int index, boolean resident) {
    if (index == capacity) {
      zeroResident = resident;
    } else {
      setBit(index, resident);
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
    if (arraySize >= maxFill) {
      grow();
    }
    int at = place(key, (int) ownerCount, resident);
    arraySize++;
    return at;
  }

  /** Places an absent key; returns the slot the given key landed in. */
  private int place(long key, int ownerCount, boolean resident) {
    long[] k = keys;
    int[] o = owners;
    int cap = capacity;
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

  void removeAt(int index) {
    if (index == capacity) {
      hasZeroKey = false;
      zeroOwners = 0;
      zeroResident = false;
      return;
    }
    long[] k = keys;
    int[] o = owners;
    int cap = capacity;
    int hole = index;
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
    arraySize--;
  }

  long footprintBytes() {
    return 56 + HashMix.arrayBytes(keys.length, 8) + HashMix.arrayBytes(owners.length, 4)
        + HashMix.arrayBytes(residentBits.length, 8);
  }

  private boolean bit(int i) {
    return (residentBits[i >>> 6] & (1L << i)) != 0;
  }

  private void setBit(int i, boolean value) {
    if (value) {
      residentBits[i >>> 6] |= 1L << i;
    } else {
      residentBits[i >>> 6] &= ~(1L << i);
    }
  }

  private int distance(int slot, long key) {
    int home = HashMix.home(key, capacity);
    return slot >= home ? slot - home : slot - home + capacity;
  }

  private void grow() {
    long[] oldKeys = keys;
    int[] oldOwners = owners;
    long[] oldBits = residentBits;
    allocate(HashMix.grownCapacity(capacity));
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        place(oldKeys[i], oldOwners[i], (oldBits[i >>> 6] & (1L << i)) != 0);
        arraySize++;
      }
    }
  }
}
