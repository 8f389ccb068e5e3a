package dev.kvrelay.ckf.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.HashMap;
import java.util.Map;
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
              map.insertAbsent(key, 0xFFFF_FFFFL - kind, resident);
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
}
