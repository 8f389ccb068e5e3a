package dev.kvrelay.ckf.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The maps' next table allocated ahead on the common pool: random insert/remove/lookup sequences across
 * several growths agree with {@link HashMap} and give the same slot layout (so the same iteration order and
 * producer output) whether every growth takes a table allocated ahead or allocates its own; iteration
 * during a migration sees each live entry exactly once; and once the table allocated ahead is ready, no
 * insertion above {@link GrowingTable#INCREMENTAL_FROM} allocates more than a few hundred bytes on the
 * map's thread.
 */
class AllocationAheadTest {
  /** Keys of a pool of 1024 (0 and sign-bit keys included), spread by an odd multiplier. */
  private static long key(long v, long multiplier) {
    return ((v >>> 3) & 1023) * (multiplier | 1);
  }

  @Test
  void longLongMapLayoutDoesNotDependOnTheTableAllocatedAhead() {
    qt().withExamples(150)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 2500), longs().all(), integers().between(1, 16))
        .checkAssert((ops, multiplier, budget) -> {
          int from = (int) (multiplier & 63);
          LongLongMap map = new LongLongMap(8, budget, from);
          LongLongMap inline = new LongLongMap(8, budget, from);
          inline.allocateAhead = false;
          Map<Long, Long> model = new HashMap<>();
          int step = 0;
          int migratingOps = 0;
          for (long v : ops) {
            long key = key(v, multiplier);
            switch ((int) (v & 7)) {
              case 0, 1, 2, 7 -> {
                if (map.indexOf(key) == LongLongMap.MISSING) {
                  assertThat(model).doesNotContainKey(key);
                  map.insertAbsent(key, v);
                  inline.insertAbsent(key, v);
                  model.put(key, v);
                  map.awaitAhead();
                }
              }
              case 3, 4 -> {
                boolean present = model.remove(key) != null;
                assertThat(map.remove(key)).isEqualTo(present);
                assertThat(inline.remove(key)).isEqualTo(present);
              }
              default -> {
                int i = map.indexOf(key);
                assertThat(i == LongLongMap.MISSING ? null : map.valueAt(i)).isEqualTo(model.get(key));
                assertThat(i).isEqualTo(inline.indexOf(key));
              }
            }
            assertThat(map.size()).isEqualTo(model.size());
            if (budget >= 9) {
              assertThat(map.lastMigrationWork).isLessThanOrEqualTo(budget);
            }
            if (map.migrating() && ++migratingOps % 7 == 0) {
              IncrementalGrowthTest.assertIteratesOnce(map, model);
            }
            if (++step % 61 == 0) {
              assertSameLayout(map, inline);
            }
          }
          IncrementalGrowthTest.assertIteratesOnce(map, model);
          IncrementalGrowthTest.assertIteratesOnce(map.copy(), model);
          assertSameLayout(map, inline);
          if (model.size() > 300) {
            assertThat(migratingOps).as("a migration was in progress").isPositive();
          }
        });
  }

  @Test
  void ownersMapLayoutDoesNotDependOnTheTableAllocatedAhead() {
    qt().withExamples(150)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 2500), longs().all(), integers().between(1, 16))
        .checkAssert((ops, multiplier, budget) -> {
          int from = (int) (multiplier & 63);
          OwnersMap map = new OwnersMap(8, budget, from);
          OwnersMap inline = new OwnersMap(8, budget, from);
          inline.allocateAhead = false;
          Map<Long, long[]> model = new HashMap<>();
          int step = 0;
          for (long v : ops) {
            long key = key(v, multiplier);
            int i = map.indexOf(key);
            assertThat(i == OwnersMap.MISSING).isEqualTo(!model.containsKey(key));
            assertThat(i).isEqualTo(inline.indexOf(key));
            long owners = (v >>> 13) & 0xFFFF_FFFFL;
            boolean resident = ((v >>> 45) & 1) != 0;
            switch ((int) (v & 7)) {
              case 0, 1, 2, 7 -> {
                if (i == OwnersMap.MISSING) {
                  int at = map.insertAbsent(key, owners, resident);
                  assertThat(inline.insertAbsent(key, owners, resident)).isEqualTo(at);
                  assertThat(map.keyAt(at)).isEqualTo(key);
                  model.put(key, new long[] {owners, resident ? 1 : 0});
                  map.awaitAhead();
                }
              }
              case 3 -> {
                if (i != OwnersMap.MISSING) {
                  map.setOwnersAt(i, owners);
                  map.setResidentAt(i, resident);
                  inline.setOwnersAt(i, owners);
                  inline.setResidentAt(i, resident);
                  model.put(key, new long[] {owners, resident ? 1 : 0});
                }
              }
              case 4, 5 -> {
                if (i != OwnersMap.MISSING) {
                  long[] m = model.remove(key);
                  assertThat(map.ownersAt(i)).isEqualTo(m[0]);
                  assertThat(map.residentAt(i)).isEqualTo(m[1] == 1);
                  map.removeAt(i);
                  inline.removeAt(i);
                }
              }
              default -> {
                if (map.migrating()) {
                  IncrementalGrowthTest.assertOwnersIterateOnce(map, model);
                }
              }
            }
            assertThat(map.size()).isEqualTo(model.size());
            if (++step % 53 == 0) {
              assertSameOwnersLayout(map, inline);
            }
          }
          IncrementalGrowthTest.assertOwnersIterateOnce(map, model);
          IncrementalGrowthTest.assertOwnersIterateOnce(map.copy(), model);
          assertSameOwnersLayout(map, inline);
        });
  }

  /**
   * At the production budget and threshold, a fill to 2^18 entries that lets each table requested ahead
   * become ready never allocates more than 1 KiB in one insertion once the capacity is at least
   * INCREMENTAL_FROM (allocating the next table inline would be ≥ 320 KiB), and the entries survive.
   */
  @Test
  void noInsertionAboveTheEagerRangeAllocatesATable() throws Exception {
    Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
    Class<?> hotspotBean = Class.forName("com.sun.management.ThreadMXBean");
    assumeTrue(hotspotBean.isInstance(threads));
    assumeTrue((Boolean) hotspotBean.getMethod("isThreadAllocatedMemoryEnabled").invoke(threads));
    Method allocatedBytes = hotspotBean.getMethod("getThreadAllocatedBytes", long.class);
    long threadId = Thread.currentThread().getId();

    int n = 1 << 18;
    LongLongMap lineage = new LongLongMap(16);
    OwnersMap owners = new OwnersMap(1024);
    long maxLineage = 0;
    long maxOwners = 0;
    int growths = 0;
    for (int i = 1; i <= n; i++) {
      long key = HashMix.mix(i);
      boolean lineageIncremental = lineage.capacity() >= GrowingTable.INCREMENTAL_FROM;
      boolean ownersIncremental = owners.capacity() >= GrowingTable.INCREMENTAL_FROM;
      int lineageCapacity = lineage.capacity();
      long a0 = (Long) allocatedBytes.invoke(threads, threadId);
      lineage.insertAbsent(key, i);
      long a1 = (Long) allocatedBytes.invoke(threads, threadId);
      owners.insertAbsent(key, 1, true);
      long a2 = (Long) allocatedBytes.invoke(threads, threadId);
      if (lineageIncremental) {
        maxLineage = Math.max(maxLineage, a1 - a0);
        growths += lineage.capacity() != lineageCapacity ? 1 : 0;
      }
      if (ownersIncremental) {
        maxOwners = Math.max(maxOwners, a2 - a1);
      }
      lineage.awaitAhead();
      owners.awaitAhead();
    }
    assertThat(growths).as("incremental growth steps of the lineage map").isGreaterThanOrEqualTo(5);
    assertThat(maxLineage).isLessThanOrEqualTo(1024);
    assertThat(maxOwners).isLessThanOrEqualTo(1024);
    for (int i = 1; i <= n; i++) {
      long key = HashMix.mix(i);
      assertThat(lineage.valueAt(lineage.indexOf(key))).isEqualTo(i);
      assertThat(owners.ownersAt(owners.indexOf(key))).isEqualTo(1);
    }
  }

  private static void assertSameLayout(LongLongMap map, LongLongMap reference) {
    assertThat(map.indexLimit()).isEqualTo(reference.indexLimit());
    for (int i = 0; i < map.indexLimit(); i++) {
      assertThat(map.isOccupied(i)).isEqualTo(reference.isOccupied(i));
      if (map.isOccupied(i)) {
        assertThat(map.keyAt(i)).isEqualTo(reference.keyAt(i));
        assertThat(map.valueAt(i)).isEqualTo(reference.valueAt(i));
      }
    }
  }

  private static void assertSameOwnersLayout(OwnersMap map, OwnersMap reference) {
    assertThat(map.indexLimit()).isEqualTo(reference.indexLimit());
    for (int i = 0; i < map.indexLimit(); i++) {
      assertThat(map.isOccupied(i)).isEqualTo(reference.isOccupied(i));
      if (map.isOccupied(i)) {
        assertThat(map.keyAt(i)).isEqualTo(reference.keyAt(i));
        assertThat(map.ownersAt(i)).isEqualTo(reference.ownersAt(i));
        assertThat(map.residentAt(i)).isEqualTo(reference.residentAt(i));
      }
    }
  }
}
