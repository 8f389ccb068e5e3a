package dev.kvrelay.ckf.producer;

/**
 * Not thread-safe: confined to the pool actor. An open-addressing {@code long → long} map: Robin Hood
 * linear probing over an arbitrary (not power-of-two) capacity, ≤ 90 % load, 25 % growth,
 * tombstone-free backward-shift deletion. Key 0 is kept outside the arrays.
 *
 * <p>Entries are addressed by <em>index</em>: {@code 0 ≤ index < capacity()} for array slots and
 * {@code capacity()} for key 0. An index is valid until the next insertion or removal.
 */
final class LongLongMap {
  static final int MISSING = -1;

  private long[] keys;
  private long[] values;
  private int capacity;
  private int maxFill;
  private int arraySize;
  private boolean hasZeroKey;
  private long zeroValue;

  LongLongMap(int initialCapacity) {
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
    return arraySize + (hasZeroKey ? 1 : 0);
  }

  /** Slots in the arrays; index {@code capacity()} is the zero-key entry. */
  int capacity() {
    return capacity;
  }

  /** Index of {@code key}, or {@link #MISSING}. */
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

  /** True if {@code index} (0..capacity()) holds an entry. */
  boolean isOccupied(int index) {
    return index == capacity ? hasZeroKey : keys[index] != 0;
  }

  long keyAt(int index) {
    return index == capacity ? 0L : keys[index];
  }

  long valueAt(int index) {
    return index == capacity ? zeroValue : values[index];
  }

  /** Inserts {@code key}, which must be absent. */
  void insertAbsent(long key, long value) {
    if (key == 0) {
      hasZeroKey = true;
      zeroValue = value;
      return;
    }
    if (arraySize >= maxFill) {
      grow();
    }
    place(key, value);
    arraySize++;
  }

  private void place(long key, long value) {
    long[] k = keys;
    long[] v = values;
    int cap = capacity;
    int i = HashMix.home(key, cap);
    int d = 0;
    while (true) {
      long cur = k[i];
      if (cur == 0) {
        k[i] = key;
        v[i] = value;
        return;
      }
      int curDistance = distance(i, cur);
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
    long[] k = keys;
    long[] v = values;
    int cap = capacity;
    int hole = index;
    int next = hole + 1 == cap ? 0 : hole + 1;
    while (true) {
      long cur = k[next];
      if (cur == 0 || distance(next, cur) == 0) {
        break;
      }
      k[hole] = cur;
      v[hole] = v[next];
      hole = next;
      next = next + 1 == cap ? 0 : next + 1;
    }
    k[hole] = 0;
    v[hole] = 0;
    arraySize--;
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
    LongLongMap c = new LongLongMap(8);
    c.keys = keys.clone();
    c.values = values.clone();
    c.capacity = capacity;
    c.maxFill = maxFill;
    c.arraySize = arraySize;
    c.hasZeroKey = hasZeroKey;
    c.zeroValue = zeroValue;
    return c;
  }

  /** Heap bytes of the backing arrays plus a fixed object overhead. */
  long footprintBytes() {
    return 48 + HashMix.arrayBytes(keys.length, 8) + HashMix.arrayBytes(values.length, 8);
  }

  private int distance(int slot, long key) {
    int home = HashMix.home(key, capacity);
    return slot >= home ? slot - home : slot - home + capacity;
  }

  private void grow() {
    long[] oldKeys = keys;
    long[] oldValues = values;
    allocate(HashMix.grownCapacity(capacity));
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        place(oldKeys[i], oldValues[i]);
        arraySize++;
      }
    }
  }
}
