package dev.kvrelay.ckf.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The maps' chunked storage: with chunks of 8–64 slots (so probe chains, backward shifts, migrations and
 * the wrap-around cross chunk boundaries all the time) random insert/remove/lookup sequences across several
 * growths agree with {@link HashMap}, keys homed on a chunk's last slot included; iteration during a
 * migration sees each live entry exactly once; the slot layout is the one the same operations give with
 * the production chunk size (so chunking cannot change the producer's iteration order or output); and at
 * the production settings no insertion allocates more than one chunk of each array.
 */
class ChunkedGrowthTest {
  /** Keys of a pool of 1024 (0 and sign-bit keys included), spread by an odd multiplier. */
  private static long key(long v, long multiplier) {
    return ((v >>> 3) & 1023) * (multiplier | 1);
  }

  /** A key derived from {@code v} whose home in a table of {@code cap} slots is the last slot of a chunk. */
  private static long boundaryKey(long v, int cap, int chunkMask) {
    for (long j = 0; ; j++) {
      long k = HashMix.mix(v + j * 0x9E37_79B9_7F4A_7C15L) | 1;
      int home = HashMix.home(k, cap);
      if ((home & chunkMask) == chunkMask || home == cap - 1) {
        return k;
      }
    }
  }

  @Test
  void longLongMapWithSmallChunksMatchesHashMapAndTheProductionLayout() {
    qt().withExamples(150)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 2500), longs().all(), integers().between(1, 16),
            integers().between(3, 6))
        .checkAssert((ops, multiplier, budget, shift) -> {
          int from = (int) (multiplier & 63);
          LongLongMap map = new LongLongMap(8, budget, from, shift);
          LongLongMap reference = new LongLongMap(8, budget, from, GrowingTable.CHUNK_SHIFT);
          Map<Long, Long> model = new HashMap<>();
          int step = 0;
          int migratingOps = 0;
          for (long v : ops) {
            long key = (v & 15) == 15 ? boundaryKey(v, map.capacity(), (1 << shift) - 1) : key(v, multiplier);
            switch ((int) (v & 7)) {
              case 0, 1, 2, 7 -> {
                if (map.indexOf(key) == LongLongMap.MISSING) {
                  assertThat(model).doesNotContainKey(key);
                  map.insertAbsent(key, v);
                  reference.insertAbsent(key, v);
                  model.put(key, v);
                }
              }
              case 3, 4 -> {
                boolean present = model.remove(key) != null;
                assertThat(map.remove(key)).isEqualTo(present);
                assertThat(reference.remove(key)).isEqualTo(present);
              }
              default -> {
                int i = map.indexOf(key);
                Long expected = model.get(key);
                assertThat(i == LongLongMap.MISSING ? null : map.valueAt(i)).isEqualTo(expected);
                assertThat(i).isEqualTo(reference.indexOf(key));
              }
            }
            assertThat(map.size()).isEqualTo(model.size());
            if (budget >= 9) {
              assertThat(map.lastMigrationWork).isLessThanOrEqualTo(budget);
            }
            if (map.migrating()) {
              migratingOps++;
              if (migratingOps % 7 == 0) {
                assertIteratesOnce(map, model);
              }
            }
            if (++step % 61 == 0) {
              assertSameLayout(map, reference);
            }
          }
          assertIteratesOnce(map, model);
          assertSameLayout(map, reference);
          for (Map.Entry<Long, Long> e : model.entrySet()) {
            assertThat(map.valueAt(map.indexOf(e.getKey()))).isEqualTo(e.getValue());
          }
          if (model.size() > 300) {
            assertThat(migratingOps).as("a migration was in progress").isPositive();
            assertThat(map.capacity() >>> shift).as("the table spans several chunks").isGreaterThan(4);
          }
        });
  }

  @Test
  void ownersMapWithSmallChunksMatchesHashMapAndTheProductionLayout() {
    qt().withExamples(150)
        .forAll(lists().of(longs().all()).ofSizeBetween(1, 2500), longs().all(), integers().between(1, 16),
            integers().between(3, 7))
        .checkAssert((ops, multiplier, budget, shift) -> {
          int from = (int) (multiplier & 63);
          OwnersMap map = new OwnersMap(8, budget, from, shift);
          OwnersMap reference = new OwnersMap(8, budget, from, GrowingTable.CHUNK_SHIFT);
          Map<Long, long[]> model = new HashMap<>();
          int step = 0;
          for (long v : ops) {
            long key = (v & 15) == 15 ? boundaryKey(v, map.capacity(), (1 << shift) - 1) : key(v, multiplier);
            int i = map.indexOf(key);
            assertThat(i == OwnersMap.MISSING).isEqualTo(!model.containsKey(key));
            assertThat(i).isEqualTo(reference.indexOf(key));
            long owners = (v >>> 13) & 0xFFFF_FFFFL;
            boolean resident = ((v >>> 45) & 1) != 0;
            switch ((int) (v & 7)) {
              case 0, 1, 2, 7 -> {
                if (i == OwnersMap.MISSING) {
                  int at = map.insertAbsent(key, owners, resident);
                  assertThat(reference.insertAbsent(key, owners, resident)).isEqualTo(at);
                  assertThat(map.keyAt(at)).isEqualTo(key);
                  model.put(key, new long[] {owners, resident ? 1 : 0});
                }
              }
              case 3 -> {
                if (i != OwnersMap.MISSING) {
                  map.setOwnersAt(i, owners);
                  map.setResidentAt(i, resident);
                  reference.setOwnersAt(i, owners);
                  reference.setResidentAt(i, resident);
                  model.put(key, new long[] {owners, resident ? 1 : 0});
                }
              }
              case 4, 5 -> {
                if (i != OwnersMap.MISSING) {
                  long[] m = model.remove(key);
                  assertThat(map.ownersAt(i)).isEqualTo(m[0]);
                  assertThat(map.residentAt(i)).isEqualTo(m[1] == 1);
                  map.removeAt(i);
                  reference.removeAt(i);
                }
              }
              default -> {
                if (map.migrating()) {
                  assertOwnersIterateOnce(map, model);
                }
              }
            }
            assertThat(map.size()).isEqualTo(model.size());
            if (++step % 53 == 0) {
              assertSameOwnersLayout(map, reference);
            }
          }
          assertOwnersIterateOnce(map, model);
          assertOwnersIterateOnce(map.copy(), model);
          assertSameOwnersLayout(map, reference);
        });
  }

  /**
   * At the production chunk size, budget and threshold, a fill to 2^18 entries never allocates more in one
   * insertion than one chunk of each array plus the next table's chunk directories (the whole table would
   * be ~5 MiB for the lineage map, ~4 MiB for the owner map at the end), and the entries survive.
   */
  @Test
  void noInsertionAllocatesMoreThanAChunkOfEachArray() throws Exception {
    Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
    Class<?> hotspotBean = Class.forName("com.sun.management.ThreadMXBean");
    assumeTrue(hotspotBean.isInstance(threads));
    assumeTrue((Boolean) hotspotBean.getMethod("isThreadAllocatedMemoryEnabled").invoke(threads));
    Method allocatedBytes = hotspotBean.getMethod("getThreadAllocatedBytes", long.class);
    long threadId = Thread.currentThread().getId();

    int chunk = 1 << GrowingTable.CHUNK_SHIFT;
    int n = 1 << 18;
    int maxChunks = (OwnersMap.capacityFor(2L * n) >>> GrowingTable.CHUNK_SHIFT) + 1;
    long directories = 3 * HashMix.arrayBytes(maxChunks, 8);
    long lineageBound = 2 * HashMix.arrayBytes(chunk, 8) + directories + 4096;
    long ownersBound = HashMix.arrayBytes(chunk, 8) + HashMix.arrayBytes(chunk, 4)
        + HashMix.arrayBytes(chunk / 64, 8) + directories + 4096;
    LongLongMap lineage = new LongLongMap(16);
    OwnersMap owners = new OwnersMap(1024);
    long maxLineage = 0;
    long maxOwners = 0;
    int allocatingCalls = 0;
    for (int i = 1; i <= n; i++) {
      long key = HashMix.mix(i);
      long a0 = (Long) allocatedBytes.invoke(threads, threadId);
      lineage.insertAbsent(key, i);
      long a1 = (Long) allocatedBytes.invoke(threads, threadId);
      owners.insertAbsent(key, 1, true);
      long a2 = (Long) allocatedBytes.invoke(threads, threadId);
      maxLineage = Math.max(maxLineage, a1 - a0);
      maxOwners = Math.max(maxOwners, a2 - a1);
      allocatingCalls += a1 - a0 > chunk ? 1 : 0;
    }
    assertThat(lineage.capacity()).as("the lineage map grew incrementally").isGreaterThan(8 * chunk);
    assertThat(allocatingCalls).as("insertions that allocated a chunk").isGreaterThan(8);
    assertThat(maxLineage).isLessThanOrEqualTo(lineageBound);
    assertThat(maxOwners).isLessThanOrEqualTo(ownersBound);
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

  private static void assertIteratesOnce(LongLongMap map, Map<Long, Long> model) {
    Map<Long, Long> seen = new HashMap<>();
    for (int i = 0; i < map.indexLimit(); i++) {
      if (map.isOccupied(i)) {
        assertThat(seen.put(map.keyAt(i), map.valueAt(i))).as("key seen twice").isNull();
      }
    }
    assertThat(seen).isEqualTo(model);
  }

  private static void assertOwnersIterateOnce(OwnersMap map, Map<Long, long[]> model) {
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
