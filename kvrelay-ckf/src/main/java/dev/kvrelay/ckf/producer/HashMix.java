package dev.kvrelay.ckf.producer;

/** Stateless and thread-safe hash mixing and slot addressing shared by the open-addressing maps. */
final class HashMix {
  private HashMix() {}

  /** Murmur3 fmix64: a bijective avalanche mix of a 64-bit key. */
  static long mix(long k) {
    k ^= k >>> 33;
    k *= 0xFF51_AFD7_ED55_8CCDL;
    k ^= k >>> 33;
    k *= 0xC4CE_B9FE_1A85_EC53L;
    k ^= k >>> 33;
    return k;
  }

  /** Home slot of {@code key} in a table of {@code capacity} slots (any capacity, not just powers of two). */
  static int home(long key, int capacity) {
    return (int) (((mix(key) >>> 32) * capacity) >>> 32);
  }

  /** Next capacity for a Robin Hood table: +25 % (at least +8), so the load after growth stays ≥ 0.72. */
  static int grownCapacity(int capacity) {
    int grown = capacity + Math.max(capacity >>> 2, 8);
    if (grown < 0 || grown > MAX_CAPACITY) {
      if (capacity >= MAX_CAPACITY) {
        throw new IllegalStateException("open-addressing map is full at " + capacity + " slots");
      }
      return MAX_CAPACITY;
    }
    return grown;
  }

  /** Largest number of entries a table of {@code capacity} slots holds: 90 % load, always one empty slot. */
  static int maxFill(int capacity) {
    return Math.min(capacity - 1, capacity - capacity / 10);
  }

  static final int MAX_CAPACITY = Integer.MAX_VALUE - 16;

  /** Bytes an array of {@code length} elements of {@code elementBytes} takes, with a 16-byte header. */
  static long arrayBytes(long length, int elementBytes) {
    return 16 + ((length * elementBytes + 7) & ~7L);
  }
}
