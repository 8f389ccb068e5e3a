package dev.kvrelay.ckf.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.HashMap;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

/** The Robin Hood maps against java.util.HashMap, including key 0, growth and backward-shift deletes. */
class OpenAddressingMapsTest {
  /** Keys drawn from a small pool so inserts, overwrites and deletes of the same key interleave. */
  private static final long[] KEYS = new long[300];

  static {
    for (int i = 0; i < KEYS.length; i++) {
      KEYS[i] = switch (i % 5) {
        case 0 -> i / 5;                                  // small, sequential, includes 0
        case 1 -> -1L - i;                                // near u64::MAX
        case 2 -> Long.MIN_VALUE + i;                     // sign-bit boundary
        case 3 -> 0x9E37_79B9_7F4A_7C15L * i;             // spread
        default -> (long) i << 40;                        // equal low bits
      };
    }
  }

  @Test
  void longLongMapAgreesWithHashMap() {
    qt().withExamples(300)
        .forAll(lists().of(integers().between(0, KEYS.length * 3 - 1)).ofSizeBetween(1, 600))
        .checkAssert(ops -> {
          LongLongMap map = new LongLongMap(8);
          Map<Long, Long> model = new HashMap<>();
          long value = 1;
          for (int op : ops) {
            long key = KEYS[op % KEYS.length];
            if (op / KEYS.length == 2) {
              assertThat(map.remove(key)).isEqualTo(model.remove(key) != null);
            } else if (!model.containsKey(key)) {
              map.insertAbsent(key, value);
              model.put(key, value);
            }
            value++;
            assertThat(map.size()).isEqualTo(model.size());
          }
          for (long key : KEYS) {
            int i = map.indexOf(key);
            if (model.containsKey(key)) {
              assertThat(i).isNotEqualTo(LongLongMap.MISSING);
              assertThat(map.keyAt(i)).isEqualTo(key);
              assertThat(map.valueAt(i)).isEqualTo(model.get(key));
            } else {
              assertThat(i).isEqualTo(LongLongMap.MISSING);
            }
          }
          assertThat(ProducerState.lineageOf(map)).containsExactlyInAnyOrderEntriesOf(model);
          assertThat(ProducerState.lineageOf(map.copy())).containsExactlyInAnyOrderEntriesOf(model);
        });
  }

  @Test
  void ownersMapAgreesWithHashMap() {
    qt().withExamples(300)
        .forAll(lists().of(integers().between(0, KEYS.length * 4 - 1)).ofSizeBetween(1, 600))
        .checkAssert(ops -> {
          OwnersMap map = new OwnersMap(8);
          Map<Long, long[]> model = new HashMap<>();
          for (int op : ops) {
            long key = KEYS[op % KEYS.length];
            int kind = op / KEYS.length;
            int i = map.indexOf(key);
            assertThat(i == OwnersMap.MISSING).isEqualTo(!model.containsKey(key));
            if (kind == 3 && i != OwnersMap.MISSING) {
              map.removeAt(i);
              model.remove(key);
            } else if (i == OwnersMap.MISSING) {
              boolean resident = (op & 1) == 0;
              int at = map.insertAbsent(key, 0xFFFF_FFFFL - kind, resident);
              assertThat(at).as("insertAbsent returns the new entry's index").isEqualTo(map.indexOf(key));
              model.put(key, new long[] {0xFFFF_FFFFL - kind, resident ? 1 : 0});
            } else {
              long[] m = model.get(key);
              m[0] = (m[0] + 1) & 0xFFFF_FFFFL;
              m[1] ^= 1;
              map.setOwnersAt(i, m[0]);
              map.setResidentAt(i, m[1] == 1);
            }
            assertThat(map.size()).isEqualTo(model.size());
          }
          for (long key : KEYS) {
            int i = map.indexOf(key);
            long[] m = model.get(key);
            if (m == null) {
              assertThat(i).isEqualTo(OwnersMap.MISSING);
            } else {
              assertThat(map.ownersAt(i)).isEqualTo(m[0]);
              assertThat(map.residentAt(i)).isEqualTo(m[1] == 1);
            }
          }
        });
  }

  @Test
  void memberDirectoryAgreesWithHashMapIncludingUnsignedExtremes() {
    long[] workers = {0, 1, -1L, Long.MIN_VALUE, 7587891234567890123L};
    int[] ranks = {0, 1, -1, 7};
    qt().withExamples(200)
        .forAll(lists().of(integers().between(0, 2 * workers.length * ranks.length - 1)).ofSizeBetween(1, 200))
        .checkAssert(ops -> {
          MemberDirectory dir = new MemberDirectory();
          Map<MemberId, LongLongMap> model = new HashMap<>();
          for (int op : ops) {
            int m = op % (workers.length * ranks.length);
            MemberId id = new MemberId(workers[m % workers.length], ranks[m / workers.length]);
            if (op >= workers.length * ranks.length) {
              assertThat(dir.remove(id.workerId(), id.dpRank())).isSameAs(model.remove(id));
            } else {
              LongLongMap l = dir.getOrCreate(id.workerId(), id.dpRank());
              model.putIfAbsent(id, l);
              assertThat(l).isSameAs(model.get(id));
            }
            assertThat(dir.size()).isEqualTo(model.size());
          }
          assertThat(dir.sortedMembers()).containsExactlyElementsOf(new java.util.TreeSet<>(model.keySet()));
        });
  }

  /**
   * Robin Hood invariants of an arbitrary-capacity linear-probing table, checked slot by slot: an
   * entry displaced from its home slot has an occupied predecessor whose probe distance is at least its
   * own minus one (so no empty slot lies between any key and its home, which the early-exit lookup
   * relies on), and at least one slot is empty (so every probe terminates).
   */
  private static void assertRobinHood(int capacity, IntPredicate occupied, IntToLongFunction keyAt) {
    int empty = 0;
    for (int i = 0; i < capacity; i++) {
      if (!occupied.test(i)) {
        empty++;
        continue;
      }
      int d = Math.floorMod(i - HashMix.home(keyAt.applyAsLong(i), capacity), capacity);
      if (d > 0) {
        int prev = i == 0 ? capacity - 1 : i - 1;
        assertThat(occupied.test(prev)).as("slot %d (distance %d) has an occupied predecessor", i, d).isTrue();
        int prevD = Math.floorMod(prev - HashMix.home(keyAt.applyAsLong(prev), capacity), capacity);
        assertThat(d).as("distance at %d vs predecessor %d", i, prevD).isLessThanOrEqualTo(prevD + 1);
      }
    }
    assertThat(empty).as("free slots of %d", capacity).isPositive();
  }

  /**
   * LongLongMap against HashMap with random keys (one random odd multiplier per example spreads up to
   * 512 key indexes, index 0 being key 0), many growths from the minimum capacity and frequent deletes
   * through both remove paths; the Robin Hood invariants hold after every operation.
   */
  @Test
  void longLongMapKeepsRobinHoodInvariantsUnderRandomChurn() {
    qt().withExamples(150)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 800), longs().all())
        .checkAssert((ops, multiplier) -> {
          LongLongMap map = new LongLongMap(8);
          Map<Long, Long> model = new HashMap<>();
          for (long v : ops) {
            long key = ((v >>> 2) & 511) * (multiplier | 1);
            switch ((int) (v & 3)) {
              case 0, 1 -> {
                if (!model.containsKey(key)) {
                  map.insertAbsent(key, v);
                  model.put(key, v);
                }
              }
              case 2 -> assertThat(map.remove(key)).isEqualTo(model.remove(key) != null);
              default -> {
                int i = map.indexOf(key);
                assertThat(i == LongLongMap.MISSING).isEqualTo(!model.containsKey(key));
                if (i != LongLongMap.MISSING) {
                  assertThat(map.valueAt(i)).isEqualTo(model.remove(key));
                  map.removeAt(i);
                }
              }
            }
            assertThat(map.size()).isEqualTo(model.size());
            assertRobinHood(map.capacity(), map::isOccupied, map::keyAt);
          }
          for (int k = 0; k < 512; k++) {
            long key = k * (multiplier | 1);
            int i = map.indexOf(key);
            if (model.containsKey(key)) {
              assertThat(i).isNotEqualTo(LongLongMap.MISSING);
              assertThat(map.valueAt(i)).isEqualTo(model.get(key));
            } else {
              assertThat(i).isEqualTo(LongLongMap.MISSING);
            }
          }
          assertThat(ProducerState.lineageOf(map)).containsExactlyInAnyOrderEntriesOf(model);
        });
  }

  /** OwnersMap against HashMap under the same random churn; Robin Hood invariants after every operation. */
  @Test
  void ownersMapKeepsRobinHoodInvariantsUnderRandomChurn() {
    qt().withExamples(150)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 800), longs().all())
        .checkAssert((ops, multiplier) -> {
          OwnersMap map = new OwnersMap(8);
          Map<Long, long[]> model = new HashMap<>();
          for (long v : ops) {
            long key = ((v >>> 2) & 511) * (multiplier | 1);
            int i = map.indexOf(key);
            assertThat(i == OwnersMap.MISSING).isEqualTo(!model.containsKey(key));
            long owners = (v >>> 11) & 0xFFFF_FFFFL;
            boolean resident = ((v >>> 43) & 1) != 0;
            switch ((int) (v & 3)) {
              case 0 -> {
                if (i == OwnersMap.MISSING) {
                  map.insertAbsent(key, owners, resident);
                  model.put(key, new long[] {owners, resident ? 1 : 0});
                }
              }
              case 1 -> {
                if (i != OwnersMap.MISSING) {
                  map.setOwnersAt(i, owners);
                  map.setResidentAt(i, resident);
                  model.put(key, new long[] {owners, resident ? 1 : 0});
                }
              }
              default -> {
                if (i != OwnersMap.MISSING) {
                  long[] m = model.remove(key);
                  assertThat(map.ownersAt(i)).isEqualTo(m[0]);
                  assertThat(map.residentAt(i)).isEqualTo(m[1] == 1);
                  map.removeAt(i);
                }
              }
            }
            assertThat(map.size()).isEqualTo(model.size());
            assertRobinHood(map.capacity(), map::isOccupied, map::keyAt);
          }
          for (int k = 0; k < 512; k++) {
            long key = k * (multiplier | 1);
            int i = map.indexOf(key);
            long[] m = model.get(key);
            if (m == null) {
              assertThat(i).isEqualTo(OwnersMap.MISSING);
            } else {
              assertThat(i).isNotEqualTo(OwnersMap.MISSING);
              assertThat(map.ownersAt(i)).isEqualTo(m[0]);
              assertThat(map.residentAt(i)).isEqualTo(m[1] == 1);
            }
          }
        });
  }

  /** MemberDirectory against HashMap with a few hundred random members: growth to 512+ slots, wrap-around deletes. */
  @Test
  void memberDirectoryAgreesWithHashMapUnderRandomChurn() {
    qt().withExamples(100)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 1500), longs().all())
        .checkAssert((ops, multiplier) -> {
          MemberDirectory dir = new MemberDirectory();
          Map<MemberId, LongLongMap> model = new HashMap<>();
          for (long v : ops) {
            int idx = (int) ((v >>> 1) & 255);
            MemberId id = new MemberId(idx / 3 * (multiplier | 1), idx % 3 == 2 ? -1 : idx % 3);
            if ((v & 1) == 0) {
              assertThat(dir.remove(id.workerId(), id.dpRank())).isSameAs(model.remove(id));
            } else {
              LongLongMap l = dir.getOrCreate(id.workerId(), id.dpRank());
              assertThat(model.putIfAbsent(id, l)).isIn(null, l);
            }
            assertThat(dir.size()).isEqualTo(model.size());
          }
          for (int idx = 0; idx < 256; idx++) {
            MemberId id = new MemberId(idx / 3 * (multiplier | 1), idx % 3 == 2 ? -1 : idx % 3);
            assertThat(dir.get(id.workerId(), id.dpRank())).isSameAs(model.get(id));
          }
          assertThat(dir.sortedMembers()).containsExactlyElementsOf(new java.util.TreeSet<>(model.keySet()));
        });
  }
}
