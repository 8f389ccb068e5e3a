package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * wan-grpc.md §9 C43 "a failed attach leaves revision 0", at engine level: the only pool's start fails (the event
 * plane refuses its subscriptions, as in {@link PoolStartRetryTest}) and the catalog stays empty at revision 0, on
 * {@link RelayEngine#catalog()}, in the stats and on a catalog watch, until a start succeeds (revision 1).
 */
@Timeout(30)
class CatalogAttachFailureTest {

  private static List<CatalogUpdate> drain(RelayStream<CatalogUpdate> s) throws Exception {
    List<CatalogUpdate> out = new ArrayList<>();
    CatalogUpdate u;
    while ((u = s.poll()) != null) {
      out.add(u);
    }
    return out;
  }

  @Test
  void c43_aFailedPoolStartLeavesTheCatalogEmptyAtRevision0UntilAStartSucceeds() throws Exception {
    InMemoryDiscovery discovery = new InMemoryDiscovery();
    PoolStartRetryTest.RefusingPlane plane = new PoolStartRetryTest.RefusingPlane(Integer.MAX_VALUE);
    InMemoryRequestPlane requests = new InMemoryRequestPlane();
    try (RelayEngine engine = RelayEngine.builder().config(RelayHarness.defaultConfig("dc-a")).discovery(discovery)
        .eventPlane(plane).requestPlane(requests).poolThreads(1).build()) {
      RelayStream<CatalogUpdate> watch = engine.watchCatalog("catalog-watcher");
      new SimWorker(discovery, plane.delegate, requests, RelayHarness.ep("ns/backend/generate"), 7,
          card("llama", "aggregated", null, 0, 1), 0, 1, true, null, 16, null).start();

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (engine.stats().poolStartFailures() < 2) {
        assertThat(System.nanoTime()).as("two failed starts in time").isLessThan(deadline);
        Thread.sleep(5);
      }
      CatalogSnapshot failed = engine.catalog();
      assertThat(failed.revision()).as("a failed attach leaves revision 0").isZero();
      assertThat(failed.pools()).isEmpty();
      RelayEngineStats stats = engine.stats();
      assertThat(stats.catalogRevision()).isZero();
      assertThat(stats.poolStarts()).isZero();
      assertThat(stats.pools()).isEmpty();
      List<CatalogUpdate> before = drain(watch);
      assertThat(before).as("the watcher got the startup catalog").isNotEmpty()
          .allSatisfy(u -> {
            assertThat(u.revision()).isZero();
            assertThat(u.pools()).isEmpty();
          });

      plane.refusals.set(0);
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (engine.catalog().pools().isEmpty()) {
        assertThat(System.nanoTime()).as("the retried start succeeded in time").isLessThan(deadline);
        Thread.sleep(5);
      }
      CatalogSnapshot attached = engine.catalog();
      assertThat(attached.revision()).as("the first successful attach is revision 1").isEqualTo(1);
      assertThat(attached.pools()).hasSize(1);
      assertThat(engine.stats().poolStartFailures()).isGreaterThanOrEqualTo(2);
      CatalogUpdate next = watch.poll(10, TimeUnit.SECONDS);
      assertThat(next).isNotNull();
      assertThat(next.revision()).isEqualTo(1);
      assertThat(next.pools()).hasSize(1);
      watch.close();
    } finally {
      requests.close();
      plane.close();
      discovery.close();
    }
  }
}
