package dev.kvrelay.engine.catalog;

import static dev.kvrelay.engine.catalog.CatalogFixtures.RELAY;
import static dev.kvrelay.engine.catalog.CatalogFixtures.descriptor;
import static dev.kvrelay.engine.catalog.CatalogFixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** The catalog against a simple exact model: a sorted map of pool key → generation and a count of changes. */
class PoolCatalogProperties {

  /** One operation: kind 0 = upsert, 1 = remove, 2 = clear (rarer), on a pool key 0..5 and generation 1..4. */
  private record Op(int kind, int key, long generation) {}

  private static final Gen<Op> OPS = integers().between(0, 20).zip(integers().between(0, 5),
      integers().between(1, 4), (k, key, gen) -> new Op(k < 10 ? 0 : k < 20 ? 1 : 2, key * 37, gen));

  /** Applies {@code op} to the catalog and the model; returns whether the model says it was a change. */
  private static boolean apply(Op op, PoolCatalog catalog, TreeMap<Integer, Long> model) {
    switch (op.kind) {
      case 0: {
        Long current = model.get(op.key);
        boolean expected = current == null || current <= op.generation;
        if (expected) {
          model.put(op.key, op.generation);
        }
        assertThat(catalog.upsert(descriptor(op.key, op.generation)).applied()).isEqualTo(expected);
        return expected;
      }
      case 1: {
        Long current = model.get(op.key);
        boolean expected = current != null && current == op.generation;
        if (expected) {
          model.remove(op.key);
        }
        assertThat(catalog.remove(pool(op.key), op.generation) == RemoveOutcome.REMOVED).isEqualTo(expected);
        return expected;
      }
      default:
        model.clear();
        catalog.clear();
        return true;
    }
  }

  private static void assertMatches(CatalogSnapshot snapshot, TreeMap<Integer, Long> model) {
    List<KvPoolId> ids = new ArrayList<>();
    List<Long> generations = new ArrayList<>();
    for (Map.Entry<Integer, Long> e : model.entrySet()) {
      ids.add(pool(e.getKey()));
      generations.add(e.getValue());
    }
    assertThat(snapshot.pools()).extracting(KvPoolDescriptor::poolId).containsExactlyElementsOf(ids);
    assertThat(snapshot.pools()).extracting(KvPoolDescriptor::layoutGeneration).containsExactlyElementsOf(generations);
  }

  @Test
  void revisionCountsChangesAndContentsMatchTheModel() {
    qt().withExamples(300).forAll(lists().of(OPS).ofSizeBetween(0, 60)).checkAssert(ops -> {
      PoolCatalog catalog = new PoolCatalog(RELAY);
      TreeMap<Integer, Long> model = new TreeMap<>();
      long changes = 0;
      for (Op op : ops) {
        CatalogSnapshot before = catalog.snapshot();
        if (apply(op, catalog, model)) {
          changes++;
        } else {
          assertThat(catalog.snapshot()).isSameAs(before);
        }
        assertThat(catalog.revision()).isEqualTo(changes);
        assertMatches(catalog.snapshot(), model);
      }
    });
  }

  @Test
  void revisionSaturatesNearU64Max() {
    qt().withExamples(200).forAll(integers().between(0, 10), lists().of(OPS).ofSizeBetween(0, 30))
        .checkAssert((below, ops) -> {
          long start = -1L - below;
          PoolCatalog catalog = new PoolCatalog(RELAY, start);
          TreeMap<Integer, Long> model = new TreeMap<>();
          int changes = 0;
          for (Op op : ops) {
            if (apply(op, catalog, model)) {
              changes++;
            }
          }
          long expected = changes >= below ? -1L : start + changes;
          assertThat(Long.toUnsignedString(catalog.revision())).isEqualTo(Long.toUnsignedString(expected));
          assertMatches(catalog.snapshot(), model);
        });
  }
}
