package dev.kvrelay.discovery.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.discovery.e2e.Adverts.Advert;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.RelayEngineException;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.discovery.sources.SourcesException;
import dev.kvrelay.spi.discovery.sources.SourcesStatus;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * File mode through the engine ({@code --sources-file}, {@code producer.md} §8.2): the watched namespaces come from
 * the polled sources document, not from the configuration's scope; a valid change re-scopes without touching pools
 * of namespaces kept, an invalid one keeps the last applied sources and is reported in the status. Cards are written
 * into the in-memory store as raw JSON text ({@link Adverts}).
 */
@Timeout(120)
class SourcesFileScopeTest {
  private static final long DEADLINE_MS = 30_000;

  @TempDir Path dir;
  private Path file;
  private final InMemoryDiscovery store = new InMemoryDiscovery();
  private final InMemoryEventPlane plane = InMemoryEventPlane.create();
  private RelayEngine engine;
  private long nextId = 0x6000_0000_0000_0001L;

  @BeforeEach
  void advertise() throws Exception {
    file = dir.resolve("sources.json");
    for (String ns : List.of("ns-a", "ns-b", "ns-c")) {
      Worker w = Worker.of("w-" + ns, ns + "/backend/generate", "llama", WorkerRole.AGGREGATED, List.of());
      for (Advert a : Adverts.of(w, nextId++, nextId++ & 0x001F_FFFF_FFFF_FFFFL)) {
        DiscoveryKind kind = java.util.Arrays.stream(DiscoveryKind.values())
            .filter(k -> k.bucket().equals(a.bucket())).findFirst().orElseThrow();
        assertThat(store.putJson(kind, a.path(), a.json())).as(a.json()).isEmpty();
      }
    }
  }

  @AfterEach
  void stop() {
    if (engine != null) {
      engine.close();
    }
    plane.close();
    store.close();
  }

  private void writeSources(String json) throws Exception {
    Path tmp = dir.resolve("sources.tmp");
    Files.writeString(tmp, json);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static String sources(String... namespaces) {
    return java.util.Arrays.stream(namespaces).map(n -> "{\"namespace\":\"" + n + "\"}")
        .collect(Collectors.joining(",", "{\"version\":1,\"sources\":[", "]}"));
  }

  private RelayEngine start() throws Exception {
    // the configured scope says "watch all": in file mode it must not be used
    return RelayEngine.builder()
        .config(RelayEngineConfig.builder().dcId("dc-file").watchAll(true).expectedUniqueBlocks(4096).build())
        .discovery(store).eventPlane(plane).poolThreads(1).sourcesFile(file, null).build();
  }

  private List<String> namespaces(CatalogSnapshot c) {
    return c.pools().stream().map(d -> d.servingEndpoint().namespace()).sorted().toList();
  }

  private CatalogSnapshot await(String what, Predicate<CatalogSnapshot> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      CatalogSnapshot c = engine.catalog();
      if (condition.test(c)) {
        return c;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + ": catalog " + namespaces(c) + ", status " + engine.sourcesStatus());
      }
      Thread.sleep(10);
    }
  }

  private SourcesStatus awaitStatus(String what, Predicate<SourcesStatus> condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      SourcesStatus s = engine.sourcesStatus().orElseThrow();
      if (condition.test(s)) {
        return s;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + ": status " + s);
      }
      Thread.sleep(10);
    }
  }

  private static KvPoolDescriptor pool(CatalogSnapshot c, String ns) {
    return c.pools().stream().filter(d -> d.servingEndpoint().namespace().equals(ns)).findFirst().orElseThrow();
  }

  @Test
  void theSourcesFileDecidesTheNamespaces_andAChangeKeepsThePoolsOfNamespacesItKeeps() throws Exception {
    writeSources(sources("ns-a"));
    engine = start();
    CatalogSnapshot first = await("only ns-a", c -> namespaces(c).equals(List.of("ns-a")));
    KvPoolDescriptor a = pool(first, "ns-a");
    // the vectors of producer.md §8.2 name this document's revision form; the status reports it as applied
    SourcesStatus s = awaitStatus("applied", st -> st.appliedRevision() != null);
    assertThat(s.count()).isEqualTo(1);
    assertThat(s.lastError()).isNull();

    writeSources(sources("ns-b", "ns-a"));
    CatalogSnapshot both = await("ns-a and ns-b", c -> namespaces(c).equals(List.of("ns-a", "ns-b")));
    assertThat(pool(both, "ns-a")).as("the pool of a kept namespace is untouched").isEqualTo(a);
    assertThat(engine.sourcesStatus().orElseThrow().count()).isEqualTo(2);

    writeSources(sources("ns-c", "ns-b"));
    CatalogSnapshot moved = await("ns-b and ns-c", c -> namespaces(c).equals(List.of("ns-b", "ns-c")));
    assertThat(pool(moved, "ns-b")).isEqualTo(pool(both, "ns-b"));
  }

  @Test
  void anInvalidUpdateKeepsTheLastAppliedSourcesAndIsReported_thenAValidOneClearsTheError() throws Exception {
    writeSources(sources("ns-a"));
    engine = start();
    KvPoolDescriptor a = pool(await("only ns-a", c -> namespaces(c).equals(List.of("ns-a"))), "ns-a");
    String applied = awaitStatus("applied", st -> st.appliedRevision() != null).appliedRevision();

    writeSources("{\"version\":1,\"sources\":[{\"namespace\":\"ns-a\"},{\"namespace\":\"ns-a\"}]}");
    SourcesStatus bad = awaitStatus("the duplicate reported", st -> st.lastError() != null);
    assertThat(bad.lastError().reason()).isEqualTo(SourcesException.Reason.DUPLICATE_NAMESPACE);
    assertThat(bad.desiredRevision()).isNull();
    assertThat(bad.appliedRevision()).isEqualTo(applied);
    assertThat(engine.catalog().pools()).containsExactly(a);

    writeSources(sources("ns-a", "ns-c"));
    await("ns-a and ns-c", c -> namespaces(c).equals(List.of("ns-a", "ns-c")));
    SourcesStatus good = awaitStatus("the error cleared", st -> st.lastError() == null && st.count() == 2);
    assertThat(good.desiredRevision()).isEqualTo(good.appliedRevision()).isNotEqualTo(applied);
  }

  @Test
  void anEmptySourcesListWithdrawsEveryPool() throws Exception {
    writeSources(sources("ns-a", "ns-b"));
    engine = start();
    await("two namespaces", c -> c.pools().size() == 2);
    writeSources(sources());
    await("nothing", c -> c.pools().isEmpty());
    assertThat(engine.sourcesStatus().orElseThrow().count()).isZero();
  }

  @Test
  void startupWithoutAValidDocumentFailsWithTheTypedReason() {
    assertThatThrownBy(this::start).isInstanceOf(RelayEngineException.class)
        .hasCauseInstanceOf(SourcesException.class)
        .satisfies(e -> assertThat(((SourcesException) e.getCause()).reason())
            .isEqualTo(SourcesException.Reason.UNAVAILABLE));
  }
}
