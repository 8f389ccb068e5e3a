package dev.kvrelay.ckf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.CkfFormat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ckf-cbi1.md §3.1–§3.3: physical insert, kicks, rollback, delete, lookup. */
class CuckooTableTest {
  private static final long TEST_SEED = 0x1234_5678_9ABC_DEF0L;

  /** Records every reported write. */
  private static final class Recorder implements CuckooTable.WriteObserver {
    final List<long[]> writes = new ArrayList<>();

    @Override
    public void bucketWritten(int bucket, long previousWord) {
      writes.add(new long[] {bucket, previousWord});
    }
  }

  @Test
  void firstInsertGoesToLowestSlotOfBucketAThenB() throws CkfConfigException {
    CuckooTable t = CuckooTable.create(CkfFormat.of(TEST_SEED, 1024), 500);
    // upstream addressing vector: hash 0 -> fp 7750, a 587, b 372
    Recorder r = new Recorder();
    assertThat(t.insert(0L, r)).isTrue();
    assertThat(t.word(587)).isEqualTo(7750L);
    assertThat(r.writes).hasSize(1);
    assertThat(r.writes.get(0)).containsExactly(587, 0);
    for (int i = 1; i < 4; i++) {
      assertThat(t.insert(0L, r)).isTrue();
    }
    assertThat(t.word(587)).isEqualTo(PackedBucket.of(7750, 7750, 7750, 7750));
    assertThat(t.insert(0L, r)).isTrue();
    assertThat(t.word(372)).isEqualTo(7750L);
    assertThat(t.occupiedSlots()).isEqualTo(5);
    assertThat(t.contains(0L)).isTrue();
    assertThat(t.contains(1L)).isFalse();
  }

  @Test
  void removeTakesExactlyOneCopyFirstInAThenB() throws CkfConfigException {
    CuckooTable t = CuckooTable.create(CkfFormat.of(TEST_SEED, 1024), 500);
    for (int i = 0; i < 5; i++) {
      t.insert(0L, CuckooTable.IGNORE_WRITES);
    }
    Recorder r = new Recorder();
    assertThat(t.remove(0L, r)).isTrue();
    assertThat(r.writes).hasSize(1);
    assertThat(r.writes.get(0)).containsExactly(587, PackedBucket.of(7750, 7750, 7750, 7750));
    assertThat(t.word(587)).isEqualTo(PackedBucket.of(0, 7750, 7750, 7750));
    assertThat(t.word(372)).isEqualTo(7750L);
    for (int i = 0; i < 4; i++) {
      assertThat(t.remove(0L, CuckooTable.IGNORE_WRITES)).isTrue();
    }
    assertThat(t.copyWords()).containsOnly(0L);
    assertThat(t.occupiedSlots()).isZero();
  }

  @Test
  void removeOfAbsentFingerprintIsInvariantViolationWithoutChange() throws CkfConfigException {
    CuckooTable t = CuckooTable.create(CkfFormat.of(TEST_SEED, 1024), 500);
    t.insert(1L, CuckooTable.IGNORE_WRITES);
    long[] before = t.copyWords();
    Recorder r = new Recorder();
    assertThat(t.remove(0L, r)).isFalse();
    assertThat(t.copyWords()).isEqualTo(before);
    assertThat(r.writes).isEmpty();
    assertThat(t.occupiedSlots()).isEqualTo(1);
  }

  @Test
  void distinctHashesWithOneRepresentationKeepSeparateCopies() throws CkfConfigException {
    CkfAddressing addr = CkfAddressing.of(CkfFormat.of(TEST_SEED, 1024));
    long[] pair = representationCollision(addr);
    CuckooTable t = CuckooTable.create(addr, 500);
    t.insert(pair[0], CuckooTable.IGNORE_WRITES);
    t.insert(pair[1], CuckooTable.IGNORE_WRITES);
    assertThat(t.occupiedSlots()).isEqualTo(2);
    int a = CkfAddressing.bucketA(addr.prepare(pair[0]));
    assertThat(PackedBucket.occupancy(t.word(a))).isEqualTo(2);
    assertThat(t.remove(pair[0], CuckooTable.IGNORE_WRITES)).isTrue();
    assertThat(t.contains(pair[1])).isTrue();
    assertThat(t.contains(pair[0])).isTrue(); // same representation: still answered present
    assertThat(t.remove(pair[1], CuckooTable.IGNORE_WRITES)).isTrue();
    assertThat(t.contains(pair[0])).isFalse();
    assertThat(t.contains(pair[1])).isFalse();
  }

  /** Two different hashes with the same (fp, a, b), found by search. */
  static long[] representationCollision(CkfAddressing addr) {
    Map<Long, Long> seen = new HashMap<>();
    for (long h = 0; ; h++) {
      long p = addr.prepare(h);
      Long other = seen.putIfAbsent(p, h);
      if (other != null) {
        return new long[] {other, h};
      }
    }
  }

  @Test
  void tinyTablesFillUntilCapacityExhaustedAndTheFailedInsertChangesNothing() throws CkfConfigException {
    for (int buckets : new int[] {2, 4}) {
      CuckooTable t = CuckooTable.create(CkfFormat.withDefaultSeed(buckets), 500);
      long h = 0;
      while (t.insert(h, CuckooTable.IGNORE_WRITES)) {
        h++;
      }
      assertThat(t.occupiedSlots()).as("B=%d", buckets).isLessThanOrEqualTo(4 * buckets);
      long[] before = t.copyWords();
      int occupied = t.occupiedSlots();
      Recorder r = new Recorder();
      long state = t.rngState();
      assertThat(t.insert(h, r)).isFalse();
      assertThat(t.copyWords()).isEqualTo(before);
      assertThat(r.writes).isEmpty();
      assertThat(t.occupiedSlots()).isEqualTo(occupied);
      assertThat(t.rngState()).as("coin + 500 slot draws").isEqualTo(state + 501 * SplitMix64.GOLDEN);
    }
  }

  @Test
  void twoBucketTableHoldsExactlyEightFingerprints() throws CkfConfigException {
    CuckooTable t = CuckooTable.create(CkfFormat.withDefaultSeed(2), 500);
    for (long h = 0; h < 8; h++) {
      assertThat(t.insert(h, CuckooTable.IGNORE_WRITES)).isTrue();
    }
    assertThat(t.insert(8, CuckooTable.IGNORE_WRITES)).isFalse();
    assertThat(t.occupiedSlots()).isEqualTo(8);
  }

  @Test
  void relocationFreeInsertIntoFullBucketsConsumesExactlyOneCoinDraw() throws CkfConfigException {
    CuckooTable t = CuckooTable.create(CkfFormat.withDefaultSeed(2), 500);
    for (long h = 0; h < 8; h++) {
      t.insert(h, CuckooTable.IGNORE_WRITES);
    }
    long state = t.rngState();
    long[] before = t.copyWords();
    Recorder r = new Recorder();
    assertThat(t.insertWithoutRelocation(99, r)).isFalse();
    assertThat(t.rngState()).isEqualTo(state + SplitMix64.GOLDEN);
    assertThat(t.copyWords()).isEqualTo(before);
    assertThat(r.writes).isEmpty();
  }

  @Test
  void relocationFreeInsertWithRoomDrawsNothing() throws CkfConfigException {
    CuckooTable t = CuckooTable.create(CkfFormat.withDefaultSeed(1024), 500);
    long state = t.rngState();
    assertThat(t.insertWithoutRelocation(5, CuckooTable.IGNORE_WRITES)).isTrue();
    assertThat(t.rngState()).isEqualTo(state);
    assertThat(t.contains(5)).isTrue();
  }

  @Test
  void freshTableStartsAtLaneZeroState() throws CkfConfigException {
    assertThat(CuckooTable.create(CkfFormat.withDefaultSeed(8), 1).rngState()).isEqualTo(0xC050D0A84124DB84L);
  }

  @Test
  void invalidMaxKicksIsTypedError() {
    assertThatThrownBy(() -> CuckooTable.create(CkfFormat.withDefaultSeed(8), 0))
        .isInstanceOfSatisfying(CkfConfigException.class,
            e -> assertThat(e.reason()).isEqualTo(CkfConfigException.Reason.INVALID_MAX_KICKS));
  }

  /**
   * The table against an independent, deliberately naive reference written from ckf-cbi1.md §3.1
   * (int[][] slots, its own splitmix64): same words after every insert/remove, same success flags, and
   * every successful write reported with the right pre-mutation value.
   */
  @Test
  void matchesNaiveReferenceOnSmallTablesWithKicksFailuresAndRemovals() {
    qt().withExamples(300)
        .forAll(integers().between(1, 5), integers().between(1, 64),
            lists().of(longs().between(0, 400)).ofSizeBetween(1, 120))
        .checkAssert((log2, kicks, ops) -> {
          CkfFormat format = CkfFormat.withDefaultSeed(1 << log2);
          CkfAddressing addr = CkfAddressing.of(format);
          CuckooTable t;
          try {
            t = CuckooTable.create(addr, kicks);
          } catch (CkfConfigException e) {
            throw new AssertionError(e);
          }
          NaiveTable ref = new NaiveTable(addr, kicks);
          for (long op : ops) {
            long hash = op >>> 1;
            long[] before = t.copyWords();
            Recorder r = new Recorder();
            boolean ok;
            boolean refOk;
            if ((op & 1) == 0 || op % 7 == 0) {
              ok = t.insert(hash, r);
              refOk = ref.insert(hash);
            } else {
              ok = t.remove(hash, r);
              refOk = ref.remove(hash);
            }
            assertThat(ok).isEqualTo(refOk);
            assertThat(t.copyWords()).isEqualTo(ref.words());
            assertThat(t.rngState()).isEqualTo(ref.state);
            assertThat(t.occupiedSlots()).isEqualTo(ref.occupied());
            if (!ok) {
              assertThat(r.writes).isEmpty();
            }
            boolean[] seen = new boolean[before.length];
            for (long[] w : r.writes) {
              int b = (int) w[0];
              if (!seen[b]) {
                assertThat(w[1]).as("first report of bucket %d carries its pre-insert word", b).isEqualTo(before[b]);
                seen[b] = true;
              }
            }
            long[] after = t.copyWords();
            for (int b = 0; b < before.length; b++) {
              if (!seen[b]) {
                assertThat(after[b]).as("unreported bucket %d unchanged", b).isEqualTo(before[b]);
              }
            }
          }
        });
  }

  /** Straight transcription of ckf-cbi1.md §3.1/§3.2 with an int[B][4] table. */
  private static final class NaiveTable {
    final CkfAddressing addr;
    final int kicks;
    final int[][] slots;
    long state = 0xC050D0A84124DB84L; // vectors.md §1.1 state0 for the default seed

    NaiveTable(CkfAddressing addr, int kicks) {
      this.addr = addr;
      this.kicks = kicks;
      this.slots = new int[addr.bucketCount()][4];
    }

    long next() {
      state += 0x9E3779B97F4A7C15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }

    boolean place(int bucket, int fp) {
      for (int s = 0; s < 4; s++) {
        if (slots[bucket][s] == 0) {
          slots[bucket][s] = fp;
          return true;
        }
      }
      return false;
    }

    boolean insert(long hash) {
      long p = addr.prepare(hash);
      int fp = CkfAddressing.fingerprint(p);
      int a = CkfAddressing.bucketA(p);
      int b = CkfAddressing.bucketB(p);
      if (place(a, fp) || place(b, fp)) {
        return true;
      }
      int[][] saved = new int[slots.length][];
      for (int i = 0; i < slots.length; i++) {
        saved[i] = slots[i].clone();
      }
      int bucket = (next() & 1) == 0 ? a : b;
      int f = fp;
      for (int k = 0; k < kicks; k++) {
        int s = (int) (next() & 3);
        int evicted = slots[bucket][s];
        slots[bucket][s] = f;
        f = evicted;
        bucket = addr.alternate(bucket, f);
        if (place(bucket, f)) {
          return true;
        }
      }
      for (int i = 0; i < slots.length; i++) {
        slots[i] = saved[i];
      }
      return false;
    }

    boolean remove(long hash) {
      long p = addr.prepare(hash);
      int fp = CkfAddressing.fingerprint(p);
      for (int bucket : new int[] {CkfAddressing.bucketA(p), CkfAddressing.bucketB(p)}) {
        for (int s = 0; s < 4; s++) {
          if (slots[bucket][s] == fp) {
            slots[bucket][s] = 0;
            return true;
          }
        }
      }
      return false;
    }

    long[] words() {
      long[] w = new long[slots.length];
      for (int i = 0; i < slots.length; i++) {
        for (int s = 0; s < 4; s++) {
          w[i] |= (long) slots[i][s] << (16 * s);
        }
      }
      return w;
    }

    int occupied() {
      int n = 0;
      for (int[] b : slots) {
        for (int v : b) {
          n += v != 0 ? 1 : 0;
        }
      }
      return n;
    }
  }

  /**
   * The prepared-address entry points ({@code insertPrepared}, {@code removePrepared}) the producer uses
   * to hash once are the canonical-hash ones: same words, same RNG draws, same reported writes, on a
   * small table where kicks, rollbacks and failed inserts happen; {@code touch} changes nothing.
   */
  /** A foreign or corrupt prepared address is refused with a typed error before anything is read or written. */
  @Test
  void aForeignOrCorruptPreparedAddressIsRefusedAndChangesNothing() throws Exception {
    CkfFormat small = CkfFormat.of(CkfFormat.DEFAULT_SEED, 8);
    CkfFormat large = CkfFormat.of(CkfFormat.DEFAULT_SEED, 1 << 12);
    CuckooTable table = CuckooTable.create(small, 500);
    for (long h = 0; h < 10; h++) {
      assertThat(table.insert(h, CuckooTable.IGNORE_WRITES)).isTrue();
    }
    long[] before = table.copyWords();
    long good = CkfAddressing.of(small).prepare(42);
    long foreign = CkfAddressing.of(large).prepare(7); // bucket A or B beyond the small table, or not its alternate
    while (CkfAddressing.of(small).isPrepared(foreign)) {
      foreign = CkfAddressing.of(large).prepare(foreign + 1);
    }
    long zeroFingerprint = good & ~0xFFFFL;
    long wrongAlternate = good ^ (1L << 40);
    assertThat(CkfAddressing.of(small).isPrepared(good)).isTrue();
    for (long bad : new long[] {foreign, zeroFingerprint, wrongAlternate}) {
      assertThatThrownBy(() -> table.insertPrepared(bad, CuckooTable.IGNORE_WRITES))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> table.removePrepared(bad, CuckooTable.IGNORE_WRITES))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> table.touch(bad)).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(table.copyWords()).as("nothing written").isEqualTo(before);
  }

  @Test
  void containsIsASlotScanOfBothBucketsOfThePreparedAddress() {
    // §3.3 literally: any of the 8 slots of bucket A and bucket B equals fp. contains() derives bucket B only
    // when A misses, from the mixed hash instead of prepare(); small tables make B and alternate hits common.
    qt().withExamples(200)
        .forAll(lists().of(longs().between(0, 200)).ofSizeBetween(1, 80), integers().between(1, 4), longs().all())
        .checkAssert((inserted, log2, seed) -> {
          CuckooTable table;
          try {
            table = CuckooTable.create(CkfFormat.of(seed, 1 << log2), 8);
          } catch (CkfConfigException e) {
            throw new AssertionError(e);
          }
          for (long h : inserted) {
            table.insert(h, CuckooTable.IGNORE_WRITES);
          }
          CkfAddressing addressing = table.addressing();
          for (long h = 0; h <= 200; h++) {
            long p = addressing.prepare(h);
            int fp = CkfAddressing.fingerprint(p);
            boolean scan = false;
            for (int bucket : new int[] {CkfAddressing.bucketA(p), CkfAddressing.bucketB(p)}) {
              for (int slot = 0; slot < PackedBucket.SLOTS; slot++) {
                scan |= (int) (table.word(bucket) >>> (16 * slot) & 0xFFFF) == fp;
              }
            }
            assertThat(table.contains(h)).as("hash %d", h).isEqualTo(scan);
          }
        });
  }

  @Test
  void preparedAddressEntryPointsMatchTheCanonicalHashOnes() {
    qt().withExamples(200)
        .forAll(lists().of(longs().between(0, 63)).ofSizeBetween(1, 120), integers().between(1, 3))
        .checkAssert((ops, log2) -> {
          CuckooTable byHash;
          CuckooTable byAddress;
          try {
            byHash = CuckooTable.create(CkfFormat.withDefaultSeed(1 << log2), 20);
            byAddress = CuckooTable.create(CkfFormat.withDefaultSeed(1 << log2), 20);
          } catch (CkfConfigException e) {
            throw new AssertionError(e);
          }
          CkfAddressing addressing = byAddress.addressing();
          Recorder hashWrites = new Recorder();
          Recorder addressWrites = new Recorder();
          for (long op : ops) {
            long hash = op >>> 1;
            long packed = addressing.prepare(hash);
            long[] before = byAddress.copyWords();
            long touched = byAddress.touch(packed);
            assertThat(byAddress.copyWords()).isEqualTo(before);
            assertThat(touched).isEqualTo(before[CkfAddressing.bucketA(packed)] ^ before[CkfAddressing.bucketB(packed)]);
            if ((op & 1) == 0) {
              assertThat(byAddress.insertPrepared(packed, addressWrites)).isEqualTo(byHash.insert(hash, hashWrites));
            } else {
              assertThat(byAddress.removePrepared(packed, addressWrites)).isEqualTo(byHash.remove(hash, hashWrites));
            }
            assertThat(byAddress.copyWords()).isEqualTo(byHash.copyWords());
            assertThat(byAddress.rngState()).isEqualTo(byHash.rngState());
            assertThat(byAddress.occupiedSlots()).isEqualTo(byHash.occupiedSlots());
          }
          assertThat(addressWrites.writes.stream().map(java.util.Arrays::toString).toList())
              .isEqualTo(hashWrites.writes.stream().map(java.util.Arrays::toString).toList());
        });
  }
}
