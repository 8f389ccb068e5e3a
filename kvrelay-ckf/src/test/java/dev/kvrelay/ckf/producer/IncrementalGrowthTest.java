package dev.kvrelay.ckf.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The open-addressing maps' incremental growth: random put/get/remove/iterate sequences that cross several
 * growth steps with a migration in progress agree with {@link HashMap}, iteration sees each entry once, a
 * copy taken mid-migration is independent, and no mutating call moves more than the migration budget.
 */
class IncrementalGrowthTest {
  /** Distinct keys of a pool of 1024, including 0 and sign-bit keys, spread by an odd multiplier. */
  private static long key(long v, long multiplier) {
    return ((v >>> 3) & 1023) * (multiplier | 1);
  }

  @Test
  void longLongMapMatchesHashMapWhileMigrating() {
    qt().withExamples(200)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 3000), longs().all(), integers().between(9, 16))
        .checkAssert((ops, multiplier, budget) -> {
          LongLongMap map = new LongLongMap(8, budget, 0);
          Map<Long, Long> model = new HashMap<>();
          int migratingOps = 0;
          int step = 0;
          for (long v : ops) {
            long key = key(v, multiplier);
            switch ((int) (v & 7)) {
              case 0, 1, 2, 3 -> {
                if (map.indexOf(key) == LongLongMap.MISSING) {
                  assertThat(model).doesNotContainKey(key);
                  map.insertAbsent(key, v);
                  model.put(key, v);
                }
              }
              case 4 -> assertThat(map.remove(key)).isEqualTo(model.remove(key) != null);
              case 5 -> {
                int i = map.indexOf(key);
                assertThat(i == LongLongMap.MISSING).isEqualTo(!model.containsKey(key));
                if (i != LongLongMap.MISSING) {
                  assertThat(map.keyAt(i)).isEqualTo(key);
                  assertThat(map.valueAt(i)).isEqualTo(model.remove(key));
                  map.removeAt(i);
                }
              }
              case 6 -> {
                int i = map.indexOf(key);
                Long expected = model.get(key);
                assertThat(i == LongLongMap.MISSING ? null : map.valueAt(i)).isEqualTo(expected);
              }
              default -> assertIteratesOnce(map, model);
            }
            assertThat(map.lastMigrationWork).isLessThanOrEqualTo(budget);
            assertThat(map.size()).isEqualTo(model.size());
            if (map.migrating()) {
              migratingOps++;
              if (++step % 97 == 0) {
                LongLongMap copy = map.copy();
                assertIteratesOnce(copy, model);
                long fresh = key(v, multiplier) ^ 0x5555_0000_0000_0001L;
                if (!model.containsKey(fresh)) {
                  copy.insertAbsent(fresh, 7);
                  assertThat(map.indexOf(fresh)).as("the copy is independent").isEqualTo(LongLongMap.MISSING);
                }
                assertIteratesOnce(map, model);
              }
            }
          }
          assertIteratesOnce(map, model);
          if (model.size() > 64) {
            assertThat(migratingOps).as("a migration was in progress").isPositive();
          }
        });
  }

  @Test
  void ownersMapMatchesHashMapWhileMigrating() {
    qt().withExamples(200)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 3000), longs().all(), integers().between(9, 16))
        .checkAssert((ops, multiplier, budget) -> {
          OwnersMap map = new OwnersMap(8, budget, 0);
          Map<Long, long[]> model = new HashMap<>();
          int migratingOps = 0;
          for (long v : ops) {
            long key = key(v, multiplier);
            int i = map.indexOf(key);
            assertThat(i == OwnersMap.MISSING).isEqualTo(!model.containsKey(key));
            long owners = (v >>> 13) & 0xFFFF_FFFFL;
            boolean resident = ((v >>> 45) & 1) != 0;
            switch ((int) (v & 7)) {
              case 0, 1, 2, 3 -> {
                if (i == OwnersMap.MISSING) {
                  int at = map.insertAbsent(key, owners, resident);
                  assertThat(map.keyAt(at)).isEqualTo(key);
                  model.put(key, new long[] {owners, resident ? 1 : 0});
                }
              }
              case 4, 5 -> {
                if (i != OwnersMap.MISSING) {
                  assertThat(map.keyAt(i)).isEqualTo(key);
                  map.setOwnersAt(i, owners);
                  map.setResidentAt(i, resident);
                  model.put(key, new long[] {owners, resident ? 1 : 0});
                }
              }
              case 6 -> {
                if (i != OwnersMap.MISSING) {
                  long[] m = model.remove(key);
                  assertThat(map.ownersAt(i)).isEqualTo(m[0]);
                  assertThat(map.residentAt(i)).isEqualTo(m[1] == 1);
                  map.removeAt(i);
                }
              }
              default -> assertOwnersIterateOnce(map, model);
            }
            assertThat(map.lastMigrationWork).isLessThanOrEqualTo(budget);
            assertThat(map.size()).isEqualTo(model.size());
            if (map.migrating()) {
              migratingOps++;
            }
          }
          assertOwnersIterateOnce(map, model);
          assertOwnersIterateOnce(map.copy(), model);
          if (model.size() > 64) {
            assertThat(migratingOps).as("a migration was in progress").isPositive();
          }
        });
  }

  /** At the production budget, a 2^18-entry fill and drain never moves more than the budget in one call. */
  @Test
  void noCallMovesMoreThanTheBudget() {
    LongLongMap lineage = new LongLongMap(16);
    OwnersMap owners = new OwnersMap(1024);
    int n = 1 << 18;
    int migratingCalls = 0;
    int maxWork = 0;
    for (int i = 1; i <= n; i++) {
      long key = HashMix.mix(i);
      lineage.insertAbsent(key, i);
      owners.insertAbsent(key, 1, true);
      maxWork = Math.max(maxWork, Math.max(lineage.lastMigrationWork, owners.lastMigrationWork));
      migratingCalls += lineage.migrating() ? 1 : 0;
    }
    assertThat(maxWork).isEqualTo(LongLongMap.MIGRATION_BUDGET);
    assertThat(migratingCalls).as("growth steps above INCREMENTAL_FROM span many calls").isGreaterThan(1000);
    assertThat(lineage.size()).isEqualTo(n);
    assertThat(owners.size()).isEqualTo(n);
    for (int i = 1; i <= n; i++) {
      long key = HashMix.mix(i);
      int l = lineage.indexOf(key);
      assertThat(lineage.valueAt(l)).isEqualTo(i);
      lineage.removeAt(l);
      owners.removeAt(owners.indexOf(key));
      assertThat(Math.max(lineage.lastMigrationWork, owners.lastMigrationWork))
          .isLessThanOrEqualTo(LongLongMap.MIGRATION_BUDGET);
    }
    assertThat(lineage.size()).isZero();
    assertThat(owners.size()).isZero();
    assertThat(lineage.migrating()).isFalse();
  }

  /** Asserts that iterating {@code map} by index visits each entry of {@code model} exactly once. */
  static void assertIteratesOnce(LongLongMap map, Map<Long, Long> model) {
    Map<Long, Long> seen = new HashMap<>();
    for (int i = 0; i < map.indexLimit(); i++) {
      if (map.isOccupied(i)) {
        assertThat(seen.put(map.keyAt(i), map.valueAt(i))).as("key seen twice").isNull();
      }
    }
    assertThat(seen).isEqualTo(model);
  }

  /** As {@link #assertIteratesOnce}, for the owner-count map ({@code model}: key → {owners, resident 0/1}). */
  static void assertOwnersIterateOnce(OwnersMap map, Map<Long, long[]> model) {
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < map.indexLimit(); i++) {
      if (map.isOccupied(i)) {
        long k = map.keyAt(i);
        assertThat(seen.add(k)).as("key seen twice").isTrue();
        long[] m = model.get(k);
        assertThat(m).isNotNull();
        assertThat(map.ownersAt(i)).isEqualTo(m[0]);
        assertThat(map.residentAt(i)).isEqualTo(m[1] == 1);
      }
    }
    assertThat(seen).isEqualTo(model.keySet());
  }
}
