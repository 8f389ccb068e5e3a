package dev.kvrelay.discovery.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.discovery.e2e.Adverts.Advert;
import dev.kvrelay.discovery.e2e.WorkerStore.WorkerProcess;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: one test at a time. The end-to-end discovery contract through the engine: worker cards written by
 * an independent writer ({@link WorkerStore}) reach a real {@link RelayEngine} through the backend under test, and
 * the engine's catalog and readiness must equal what {@link ExpectedRelay} computes from the same inputs, for the
 * {@code producer.md} §5.6 worked examples (disaggregated prefill/decode pools, an encode worker without a pool,
 * LoRA adapters under their base entry, removal) and for taint changes, which must change nothing published.
 *
 * <p>Each backend's test subclasses it (JCTools style) and supplies the store and the backend. Every test watches its
 * own fresh Dynamo namespace, so state left by an earlier test is outside the engine's scope.
 */
@Timeout(180)
public abstract class EngineDiscoveryContract {
  /** Bounds only a failing run: a loaded machine converges later, never differently. */
  protected static final long DEADLINE_MS = 30_000;
  private static final Logger LOG = LoggerFactory.getLogger(EngineDiscoveryContract.class);
  private static final AtomicLong NAMESPACES = new AtomicLong();
  private static final AtomicLong PUBLISHERS = new AtomicLong(0x1F00_0000_0000L);

  /** A fresh, empty store. */
  protected abstract WorkerStore openStore() throws Exception;

  /** The backend under test, connected to the store {@link #openStore()} returned last. */
  protected abstract DiscoveryBackend openBackend() throws Exception;

  /** A short label for logs (the backend's name). */
  protected abstract String backendName();

  protected WorkerStore store;
  protected DiscoveryBackend backend;
  protected RelayEngine engine;
  protected String ns;
  private InMemoryEventPlane plane;
  private final Map<String, WorkerProcess> processes = new HashMap<>();
  private final Map<String, Long> publisherIds = new HashMap<>();
  private final Map<String, Worker> advertised = new LinkedHashMap<>();

  @BeforeEach
  void startRelay() throws Exception {
    store = openStore();
    backend = openBackend();
    plane = InMemoryEventPlane.create();
    ns = "e2e-" + NAMESPACES.incrementAndGet();
    engine = RelayEngine.builder()
        .config(RelayEngineConfig.builder().dcId("dc-e2e").namespaces(List.of(ns)).expectedUniqueBlocks(4096).build())
        .discovery(backend).eventPlane(plane).poolThreads(1).build();
  }

  @AfterEach
  void stopRelay() throws Exception {
    if (engine != null) {
      engine.close();
    }
    if (plane != null) {
      plane.close();
    }
    if (backend != null) {
      backend.close();
    }
    if (store != null) {
      store.close();
    }
  }

  // ------------------------------------------------------------------ worker helpers

  /** The worker on endpoint {@code component/generate} of this test's namespace. */
  protected Worker worker(String name, String component, String model, WorkerRole role, List<List<WorkerRole>> needs) {
    return Worker.of(name, ns + "/" + component + "/generate", model, role, needs);
  }

  /** Advertises {@code w} (or changes what its worker advertises to {@code w}): writes new values, deletes stale ones. */
  protected void advertise(Worker w) throws Exception {
    WorkerProcess p = processes.get(w.name());
    if (p == null) {
      p = store.spawn(w.name());
      processes.put(w.name(), p);
      publisherIds.put(w.name(), PUBLISHERS.incrementAndGet() * 0x9E37L & 0x001F_FFFF_FFFF_FFFFL);
    }
    Worker before = advertised.get(w.name());
    List<Advert> now = Adverts.of(w, p.instanceId(), publisherIds.get(w.name()));
    Set<String> keep = new HashSet<>();
    for (Advert a : now) {
      keep.add(a.bucket() + "/" + a.path());
    }
    if (before != null) {
      for (Advert a : Adverts.of(before, p.instanceId(), publisherIds.get(w.name()))) {
        if (!keep.contains(a.bucket() + "/" + a.path())) {
          p.delete(a.bucket(), a.path());
        }
      }
    }
    List<Advert> changed = new ArrayList<>();
    List<Advert> old = before == null ? List.of() : Adverts.of(before, p.instanceId(), publisherIds.get(w.name()));
    for (Advert a : now) {
      if (!old.contains(a)) {
        changed.add(a);
      }
    }
    // the instance and the cards first, the KV event source last, as a worker starts
    for (Advert a : changed) {
      p.put(a.bucket(), a.path(), a.json());
    }
    advertised.put(w.name(), w);
  }

  /** Deregisters everything the worker advertised (a graceful shutdown). */
  protected void withdraw(String name) throws Exception {
    Worker w = advertised.remove(name);
    WorkerProcess p = processes.get(name);
    List<Advert> all = Adverts.of(w, p.instanceId(), publisherIds.get(name));
    for (int i = all.size() - 1; i >= 0; i--) {
      p.delete(all.get(i).bucket(), all.get(i).path());
    }
  }

  /** What the oracle expects now. */
  protected RelayView expected() {
    return ExpectedRelay.of(advertised.values(), ns);
  }

  protected RelayView observed() {
    return RelayView.observe(engine.catalog(), engine.readiness(), ns);
  }

  /** Waits until the engine publishes exactly what the oracle expects from the advertised workers. */
  protected RelayView awaitExpected(String what) throws InterruptedException {
    RelayView want = expected();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (true) {
      RelayView got = observed();
      if (got.equals(want)) {
        return got;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(backendName() + ": " + what + ": the relay did not converge on the expected view"
            + "\nexpected " + want + "\nobserved " + got);
      }
      Thread.sleep(5);
    }
  }

  // ------------------------------------------------------------------ §5.6 worked examples

  @Test
  void disaggregatedModel_prefillAndDecodePools_oneReadinessEntryWithBothRoles_thenDecodeRemoved() throws Exception {
    Worker prefill = worker("prefill-0", "prefill", "llama", WorkerRole.PREFILL, List.of(List.of(WorkerRole.DECODE)));
    Worker decode = worker("decode-0", "decode", "llama", WorkerRole.DECODE, List.of(List.of(WorkerRole.PREFILL)));
    advertise(prefill);
    advertise(decode);
    RelayView v = awaitExpected("P/D");
    // the oracle's own view of the worked example, spelled out once so the oracle is checked too
    assertThat(v.pools()).hasSize(2);
    assertThat(v.entries()).singleElement().satisfies(e -> {
      assertThat(e.present()).containsExactly(WorkerRole.PREFILL, WorkerRole.DECODE);
      assertThat(e.missing()).isEmpty();
      assertThat(e.members()).allSatisfy(m -> assertThat(m.linked()).isTrue());
    });

    withdraw("decode-0"); // "P + D, only prefill live"
    RelayView after = awaitExpected("P/D after the decode worker left");
    assertThat(after.pools()).singleElement().satisfies(p -> assertThat(p.roles()).containsExactly(WorkerRole.PREFILL));
    assertThat(after.entries()).singleElement().satisfies(e -> assertThat(e.missing()).containsExactly(WorkerRole.DECODE));
  }

  @Test
  void encodeWorkerWithoutKvEvents_isAMemberWithoutAPool_andItsRemovalLeavesPrefillDecodeReady() throws Exception {
    advertise(worker("prefill-0", "prefill", "llama", WorkerRole.PREFILL, List.of(List.of(WorkerRole.DECODE))));
    advertise(worker("decode-0", "decode", "llama", WorkerRole.DECODE, List.of(List.of(WorkerRole.PREFILL))));
    advertise(worker("encode-0", "encode", "llama", WorkerRole.ENCODE,
        List.of(List.of(WorkerRole.PREFILL, WorkerRole.DECODE), List.of(WorkerRole.AGGREGATED))).withoutKvEvents());
    RelayView v = awaitExpected("E/P/D");
    assertThat(v.pools()).hasSize(2);
    assertThat(v.entries().get(0).members()).hasSize(3).anySatisfy(m -> {
      assertThat(m.roles()).containsExactly(WorkerRole.ENCODE);
      assertThat(m.linked()).isFalse();
    });
    withdraw("encode-0");
    assertThat(awaitExpected("P/D after the encode worker left").entries().get(0).members()).hasSize(2);
  }

  @Test
  void loraAdapters_areRegisteredOnTheirBasePool_andReadyUnderTheirBaseEntry() throws Exception {
    Worker llama = worker("agg-0", "backend", "llama", WorkerRole.AGGREGATED, List.of())
        .withAdapter("llama-sql", "sql-lora-v2", "sql-v2");
    Worker prefill = worker("prefill-0", "prefill", "mistral", WorkerRole.PREFILL, List.of(List.of(WorkerRole.DECODE)));
    Worker decode = worker("decode-0", "decode", "mistral", WorkerRole.DECODE, List.of(List.of(WorkerRole.PREFILL)))
        .withAdapter("mistral-chat", "chat-lora", "chat");
    advertise(llama);
    advertise(prefill);
    advertise(decode);
    RelayView v = awaitExpected("two bases with adapters");
    assertThat(v.entries()).hasSize(2);
    // "adapter only on decode in P/D": base READY, adapter UNAVAILABLE missing [prefill]
    assertThat(v.entries().get(1).adapters()).singleElement()
        .satisfies(a -> assertThat(a.missing()).containsExactly(WorkerRole.PREFILL));

    advertise(llama.withoutAdapters());
    RelayView after = awaitExpected("the llama adapter card removed");
    assertThat(after.entries().get(0).adapters()).isEmpty();
  }

  @Test
  void twoAggregatedModels_thenOneWorkerRemoved_thenAllRemoved() throws Exception {
    advertise(worker("agg-llama", "llama", "llama", WorkerRole.AGGREGATED, List.of()));
    advertise(worker("agg-mixtral", "mixtral", "mixtral", WorkerRole.AGGREGATED, List.of()));
    assertThat(awaitExpected("two aggregated models").entries()).hasSize(2);
    withdraw("agg-mixtral");
    assertThat(awaitExpected("mixtral removed").entries()).hasSize(1);
    withdraw("agg-llama");
    RelayView empty = awaitExpected("everything removed");
    assertThat(empty.pools()).isEmpty();
    assertThat(empty.entries()).isEmpty();
  }

  @Test
  void modelTaints_changeNeitherTheCatalogNorReadinessNorThePoolIdentity() throws Exception {
    Worker w = worker("agg-0", "backend", "llama", WorkerRole.AGGREGATED, List.of());
    advertise(w);
    awaitExpected("one aggregated pool");
    KvPoolDescriptor before = engine.catalog().pools().get(0);

    advertise(w.withTaints(List.of("dynamo.topology/zone=a", "maintenance")));
    // barrier: a later change by another worker; once it is visible, the taint write (made earlier) was applied
    advertise(worker("agg-1", "other", "mixtral", WorkerRole.AGGREGATED, List.of()));
    awaitExpected("after the taint change and a second model");
    KvPoolDescriptor after = engine.catalog().pools().stream()
        .filter(d -> d.servingEndpoint().equals(before.servingEndpoint())).findFirst().orElseThrow();
    assertThat(after).as("a taints-only change keeps the pool and its producer identity").isEqualTo(before);
  }

  // ------------------------------------------------------------------ watch → catalog latency

  /**
   * The writer the latency test times: by default the test's own store; a backend whose scenario writer is a separate
   * process per call (etcdctl) supplies an in-process client of the store instead, so that the figure is the watch
   * path and not process start-up. The caller closes it (it may be {@link #store}: closing twice is harmless).
   */
  protected WorkerStore latencyStore() throws Exception {
    return store;
  }

  /** How many card changes the latency test makes (at least 1,000 for the report). */
  protected int latencyChanges() {
    return Integer.getInteger("kvrelay.e2e.latencyChanges", 1000);
  }

  /**
   * Watch → catalog latency: {@link #latencyChanges()} adapter cards added and removed one at a time on a live pool;
   * each is timed from just before the writer's call (one loopback write to the store) to the moment the engine's
   * catalog shows the changed registrations. Logs p50 / p90 / p99 / max; asserts only that every change arrived (no
   * timing bound: the machine is shared).
   */
  @Test
  @Timeout(900)
  void watchToCatalogLatency_isLoggedOverManyCardChanges() throws Exception {
    Worker base = worker("agg-0", "backend", "llama", WorkerRole.AGGREGATED, List.of());
    WorkerStore writer = latencyStore();
    if (writer != store) {
      processes.put(base.name(), writer.spawn(base.name()));
      publisherIds.put(base.name(), PUBLISHERS.incrementAndGet() * 0x9E37L & 0x001F_FFFF_FFFF_FFFFL);
    }
    advertise(base);
    awaitExpected("the pool before timing");
    WorkerProcess p = processes.get(base.name());
    int n = latencyChanges();
    long[] nanos = new long[n];
    for (int i = 0; i < n; i++) {
      boolean add = i % 2 == 0;
      Worker.Adapter a = new Worker.Adapter("llama-a" + (i / 2), "lora-" + (i / 2), "a" + (i / 2));
      Advert card = Adverts.adapterCard(base, a, p.instanceId());
      long revision = engine.catalog().revision();
      long written = System.nanoTime();
      if (add) {
        p.put(card.bucket(), card.path(), card.json());
      } else {
        p.delete(card.bucket(), card.path());
      }
      int want = add ? 2 : 1;
      long deadline = written + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
      while (true) {
        CatalogSnapshot c = engine.catalog();
        if (c.revision() != revision && c.pools().size() == 1 && c.pools().get(0).registrations().size() == want) {
          nanos[i] = System.nanoTime() - written;
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError(backendName() + ": change " + i + " never reached the catalog: " + c);
        }
        LockSupport.parkNanos(20_000);
      }
    }
    Arrays.sort(nanos);
    String line = String.format(java.util.Locale.ROOT,
        "%s watch->catalog latency over %d card changes: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
        backendName(), n, ms(nanos, 0.50), ms(nanos, 0.90), ms(nanos, 0.99), nanos[n - 1] / 1e6);
    LOG.warn(line); // warn: the test logs run at warn by default, and this line is the test's output
    assertThat(nanos[0]).as("every change was timed").isPositive();
    if (writer != store) {
      writer.close();
    }
  }

  private static double ms(long[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }
}
