package dev.kvrelay.launcher;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.ckf.hashing.HashingInputException;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.RelayConfigException;
import dev.kvrelay.engine.RelayEngineException;
import dev.kvrelay.engine.consumer.ConsumerStats;
import dev.kvrelay.engine.consumer.GlobalViewAnswer;
import dev.kvrelay.engine.consumer.GlobalViewMatch;
import dev.kvrelay.engine.consumer.ReadinessSnapshot;
import dev.kvrelay.engine.consumer.RelayConsumer;
import dev.kvrelay.engine.consumer.ReplicaState;
import dev.kvrelay.engine.consumer.ReplicaStatus;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.ModelKey;
import dev.kvrelay.engine.wan.RelaySource;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: one run on the caller's thread (the relays and the router run their own threads, which the
 * run stops before it returns). The embedded default until the launcher issue lands: the real relay engine in
 * process for three data centers, read back by a router exactly as a remote router reads relays, and checked.
 *
 * <p>The walk: each DC gets its own discovery store, event plane and request plane, a {@code RelayEngine}
 * watching them, and two simulated workers with two data-parallel ranks each that serve one model on one
 * endpoint ({@link DemoWorker}: model card, endpoint instance, KV event sources, {@code Stored}/{@code Removed}
 * events with Dynamo token-block hashes, answers to recovery queries). A {@link RelayConsumer} then reads the
 * three relays through {@link RelaySource} (catalog → per-pool CKF replicas in a 16-lane global view, readiness)
 * and answers "how long a prefix of this request does DC X cache?".
 *
 * <p>The workers' traffic (blocks of 16 tokens; S = a 4-block system prompt, A/B/C = documents of 4/6/2 blocks,
 * X = an unrelated 5-block chat):
 * <pre>
 *   us-west     worker-1 rank 0 caches S+A, then evicts its last 2 blocks;  worker-2 rank 1 caches S + B[0]
 *   us-east     worker-1 rank 1 caches S+B;                                 worker-2 rank 0 caches S+C
 *   eu-central  worker-1 rank 0 caches S;                                   worker-2 rank 1 caches X
 * </pre>
 * so the exact prefix depths (blocks) of the requests are:
 * <pre>
 *   request                                  us-west  us-east  eu-central
 *   S+A + question (11 blocks)                     6        4           4
 *   S+B + question (13)                            5       10           4
 *   S+C + question + 7-token tail (9 full)         4        6           4
 *   S + question (7)                               4        4           4
 *   X + follow-up (8)                              0        0           5
 *   unrelated prompt (6)                           0        0           0
 * </pre>
 * The demo computes each expected depth from its workers' caches (not from this table), waits until the router's
 * answers equal them (or a deadline passes), prints everything and reports whether every answer matched.
 */
final class EmbeddedDemo {
  static final List<String> DATA_CENTERS = List.of("us-west", "us-east", "eu-central");
  static final DynamoEndpointId ENDPOINT = new DynamoEndpointId("dynamo", "backend", "generate");
  static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  static final List<String> ALIASES = List.of("llama-3.1-8b");
  static final int BLOCK_SIZE = 16;
  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(20);

  private static final int WORKERS_PER_DC = 2;
  private static final int RANKS_PER_WORKER = 2;
  private static final long EXPECTED_UNIQUE_BLOCKS = 4096;
  private static final int POOL_THREADS = 2;
  private static final long POLL_MS = 5;
  /** Replica max-age: three times the default pool heartbeat interval (10 s). */
  private static final long REPLICA_MAX_AGE_US = 30_000_000L;
  private static final String ROUTER_ID = "kvrelay-demo-router";
  private static final int VOCABULARY = 128_000;

  private final PrintStream out;
  private final Duration deadline;

  /** A demo printing to {@code out} that waits at most {@code deadline} for the relays and the router. */
  EmbeddedDemo(PrintStream out, Duration deadline) {
    this.out = out;
    this.deadline = deadline;
  }

  /** Immutable and thread-safe (the token array is never written): one request of the self-check and its label. */
  private static final class Request {
    final String label;
    final int[] tokens;

    Request(String label, int[] tokens) {
      this.label = label;
      this.tokens = tokens;
    }
  }

  /**
   * Runs the demo: starts the relays and workers, drives the traffic, reads everything back through the router,
   * prints it and stops every relay, plane and thread it started (also on failure).
   *
   * @throws DemoException if a relay or the router does not come up before the deadline, or a part refuses to
   *     start
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  DemoOutcome run() throws DemoException, InterruptedException {
    long started = System.nanoTime();
    List<PrefixCheck> checks;
    List<DemoDataCenter> dcs = new ArrayList<>();
    ScheduledExecutorService routerThread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, ROUTER_ID);
      t.setDaemon(true);
      return t;
    });
    RelayConsumer router = null;
    try {
      TokenBlockHasher hasher = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, BLOCK_SIZE);
      out.printf("kvrelay embedded demo: %d relays (RelayEngine, in process) and one router (RelayConsumer)%n",
          DATA_CENTERS.size());
      out.printf("  model %s on %s, KV blocks of %d tokens; %d workers x %d ranks per DC%n%n", MODEL, ENDPOINT,
          BLOCK_SIZE, WORKERS_PER_DC, RANKS_PER_WORKER);
      for (int d = 0; d < DATA_CENTERS.size(); d++) {
        DemoDataCenter dc = DemoDataCenter.start(DATA_CENTERS.get(d), EXPECTED_UNIQUE_BLOCKS, POOL_THREADS);
        dcs.add(dc);
        for (int w = 1; w <= WORKERS_PER_DC; w++) {
          dc.addWorker("worker-" + w, 0x1000L * (d + 1) + w, ENDPOINT, MODEL, ALIASES, RANKS_PER_WORKER, hasher);
        }
      }
      long until = System.nanoTime() + deadline.toNanos();
      KvPoolDescriptor firstPool = awaitPools(dcs, until);

      router = buildRouter(firstPool, dcs, routerThread);
      router.start();
      // Subscribed before the traffic: the workers' blocks then reach the router as CBI1 deltas, not a snapshot.
      awaitLiveReplicas(router, dcs.size(), until);

      Segments segments = new Segments();
      driveTraffic(dcs, segments);
      List<Request> requests = requests(segments);

      checks = awaitAnswers(router, dcs, requests, hasher, until);
      printWorkers(dcs);
      printCatalogs(router, dcs);
      printReadiness(router);
      printMatches(checks, requests.size());
      printRouter(router);
    } catch (HashingInputException | RelayConfigException | RelayEngineException | DiscoveryDecodeException e) {
      throw new DemoException("the demo could not start: " + e.getMessage(), e);
    } finally {
      try {
        stopRouter(router, routerThread);
      } finally {
        closeAll(dcs);
      }
    }
    DemoOutcome outcome = new DemoOutcome(checks, System.nanoTime() - started);
    long matched = checks.stream().filter(PrefixCheck::passed).count();
    out.printf("%n%s: %d of %d answers equal the expected depth; relays, planes and router stopped; %.2f s%n",
        outcome.passed() ? "OK" : "FAILED", matched, checks.size(), outcome.elapsedNanos() / 1e9);
    return outcome;
  }

  // ------------------------------------------------------------------ set-up

  /** Waits until every relay lists a pool for the endpoint; returns the first DC's descriptor. */
  private static KvPoolDescriptor awaitPools(List<DemoDataCenter> dcs, long untilNanos)
      throws DemoException, InterruptedException {
    while (true) {
      List<String> missing = new ArrayList<>();
      for (DemoDataCenter dc : dcs) {
        if (dc.pool(ENDPOINT).isEmpty()) {
          missing.add(dc.name());
        }
      }
      if (missing.isEmpty()) {
        return dcs.get(0).pool(ENDPOINT).orElseThrow();
      }
      if (System.nanoTime() > untilNanos) {
        throw new DemoException("no pool for " + ENDPOINT + " in time at " + missing);
      }
      Thread.sleep(POLL_MS);
    }
  }

  /** A router reading every DC's relay for the pool's indexer domain, on its own serial thread. */
  private static RelayConsumer buildRouter(KvPoolDescriptor pool, List<DemoDataCenter> dcs,
      ScheduledExecutorService thread) {
    RelayConsumer.Builder b = RelayConsumer.builder()
        .consumerInstance(1)
        .domain(pool.poolId().indexerDomain())
        .format(pool.producer().ckfFormat())
        .semantics(pool.querySemantics())
        .maxAgeUs(REPLICA_MAX_AGE_US)
        .subscriberIdBase(ROUTER_ID)
        .executor(thread)
        .clocks(System::nanoTime, () -> System.currentTimeMillis() * 1_000L);
    for (DemoDataCenter dc : dcs) {
      b.source(dc.name(), dc.relay());
    }
    return b.build();
  }

  /** Waits until the router holds one LIVE replica (snapshot installed) per DC. */
  private static void awaitLiveReplicas(RelayConsumer router, int count, long untilNanos)
      throws DemoException, InterruptedException {
    while (true) {
      List<ReplicaStatus> states = router.replicaStates();
      if (states.size() == count && states.stream().allMatch(r -> r.state() == ReplicaState.LIVE)) {
        return;
      }
      if (System.nanoTime() > untilNanos) {
        throw new DemoException("the router's replicas did not become LIVE in time: " + states);
      }
      Thread.sleep(POLL_MS);
    }
  }

  /**
   * Closes the router (its close runs on its own thread, after any task already queued), waits for that, then
   * stops the thread: nothing the router scheduled outlives the run.
   */
  private static void stopRouter(@Nullable RelayConsumer router, ScheduledExecutorService thread)
      throws InterruptedException {
    try {
      if (router != null) {
        router.close();
        thread.submit(() -> { }).get(2, TimeUnit.SECONDS);
      }
    } catch (ExecutionException | TimeoutException e) {
      // the thread is stopped below either way
    } finally {
      thread.shutdownNow();
      thread.awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  /** Closes every data center, the last started first; a failure to close one does not skip the others. */
  private static void closeAll(List<DemoDataCenter> dcs) {
    RuntimeException first = null;
    for (int i = dcs.size() - 1; i >= 0; i--) {
      try {
        dcs.get(i).close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  // ------------------------------------------------------------------ the workers' traffic

  /** Immutable (its arrays are never written): the deterministic token segments (same tokens on every run and JVM). */
  private static final class Segments {
    final int[] s = tokens("system prompt", 4 * BLOCK_SIZE);
    final int[] a = tokens("document A", 4 * BLOCK_SIZE);
    final int[] b = tokens("document B", 6 * BLOCK_SIZE);
    final int[] c = tokens("document C", 2 * BLOCK_SIZE);
    final int[] x = tokens("another chat", 5 * BLOCK_SIZE);
    final int[] q1 = tokens("question 1", 3 * BLOCK_SIZE);
    final int[] q2 = tokens("question 2", 3 * BLOCK_SIZE);
    final int[] q3 = tokens("question 3", 3 * BLOCK_SIZE);
    final int[] tail = tokens("partial tail", 7);
  }

  /** What each DC's workers cache and evict (see the class comment). */
  private static void driveTraffic(List<DemoDataCenter> dcs, Segments seg) {
    int[] s = seg.s;
    int[] sa = concat(s, seg.a);
    int[] sb = concat(s, seg.b);
    int[] sc = concat(s, seg.c);

    List<DemoWorker> west = dcs.get(0).workers();
    west.get(0).cache(0, sa);
    west.get(1).cache(1, Arrays.copyOf(sb, 5 * BLOCK_SIZE));
    west.get(0).evict(0, sa, 6);

    List<DemoWorker> east = dcs.get(1).workers();
    east.get(0).cache(1, sb);
    east.get(1).cache(0, sc);

    List<DemoWorker> eu = dcs.get(2).workers();
    eu.get(0).cache(0, s);
    eu.get(1).cache(1, seg.x);
  }

  /** The router's requests. */
  private static List<Request> requests(Segments seg) {
    int[] s = seg.s;
    return List.of(
        new Request("S+A + question", concat(s, seg.a, seg.q1)),
        new Request("S+B + question", concat(s, seg.b, seg.q2)),
        new Request("S+C + question + 7-token tail", concat(s, seg.c, seg.q3, seg.tail)),
        new Request("S + question", concat(s, seg.q1)),
        new Request("X + follow-up", concat(seg.x, seg.q2)),
        new Request("unrelated prompt", concat(seg.q3, seg.q1)));
  }

  static int[] tokens(String label, int count) {
    SplittableRandom random = new SplittableRandom(label.hashCode());
    int[] t = new int[count];
    for (int i = 0; i < count; i++) {
      t[i] = 1 + random.nextInt(VOCABULARY - 1);
    }
    return t;
  }

  private static int[] concat(int[]... parts) {
    int n = 0;
    for (int[] p : parts) {
      n += p.length;
    }
    int[] all = new int[n];
    int at = 0;
    for (int[] p : parts) {
      System.arraycopy(p, 0, all, at, p.length);
      at += p.length;
    }
    return all;
  }

  // ------------------------------------------------------------------ the router's answers

  /**
   * Asks the router until every answer equals the exact depth and every DC reads READY, or the deadline passes;
   * returns the last round of checks.
   */
  private static List<PrefixCheck> awaitAnswers(RelayConsumer router, List<DemoDataCenter> dcs,
      List<Request> requests, TokenBlockHasher hasher, long untilNanos) throws InterruptedException {
    Map<DcId, String> dcNames = new HashMap<>();
    for (DemoDataCenter dc : dcs) {
      dcNames.put(dc.relay().config().dcId(), dc.name());
    }
    while (true) {
      List<PrefixCheck> checks = new ArrayList<>();
      for (Request r : requests) {
        long[] chain = hasher.sequenceHashes(r.tokens);
        GlobalViewAnswer answer = router.query(r.tokens, MODEL);
        Map<String, GlobalViewMatch> byDc = new HashMap<>();
        if (answer.status() == GlobalViewAnswer.Status.ANSWERED) {
          for (GlobalViewMatch m : answer.matches()) {
            byDc.put(dcNames.get(m.dcId()), m);
          }
        }
        for (DemoDataCenter dc : dcs) {
          GlobalViewMatch m = byDc.get(dc.name());
          checks.add(new PrefixCheck(r.label, dc.name(), chain.length, dc.exactDepth(chain),
              m == null ? PrefixCheck.NO_ANSWER : m.depthBlocks(), m == null ? 0 : m.matchedTokens()));
        }
      }
      boolean allReady = dcs.stream().allMatch(dc -> router.readiness(dc.name())
          .map(s -> s.isReady(ENDPOINT.namespace(), MODEL)).orElse(false));
      if ((allReady && checks.stream().allMatch(PrefixCheck::passed)) || System.nanoTime() > untilNanos) {
        return checks;
      }
      Thread.sleep(POLL_MS);
    }
  }

  // ------------------------------------------------------------------ printing

  /** What each worker caches now. */
  private void printWorkers(List<DemoDataCenter> dcs) {
    for (DemoDataCenter dc : dcs) {
      for (DemoWorker w : dc.workers()) {
        out.printf("worker %s%n", w);
      }
    }
    out.println();
  }

  /** Each DC's catalog as the router holds it: the usable pools of the revision it applied and validated. */
  private void printCatalogs(RelayConsumer router, List<DemoDataCenter> dcs) {
    for (DemoDataCenter dc : dcs) {
      Optional<CatalogSnapshot> catalog = router.catalog(dc.name());
      if (catalog.isEmpty()) {
        out.printf("catalog of %s: no update applied%n", dc.name());
        continue;
      }
      CatalogSnapshot c = catalog.get();
      out.printf("catalog of %s (dc_id %s, %s, revision %s)%n", dc.name(), dc.relay().config().dcId(),
          c.identity(), Long.toUnsignedString(c.revision()));
      for (KvPoolDescriptor d : c.pools()) {
        out.printf("  pool         %s%n", d.poolId());
        out.printf("  producer     incarnation %s, layout generation %s, %s%n",
            Long.toUnsignedString(d.producer().producerIncarnation()),
            Long.toUnsignedString(d.producer().layoutGeneration()), d.producer().ckfFormat());
        out.printf("  endpoint     %s, %s%n", d.servingEndpoint(), d.querySemantics());
        out.printf("  roles        %s%n", d.poolRoles());
        for (ModelRegistration m : d.registrations()) {
          out.printf("  registration %s -> %s, aliases %s%n", m.canonicalModelId(), m.target(), m.aliases());
        }
      }
    }
    out.println();
  }

  /** Each DC's readiness entries as the router holds them. */
  private void printReadiness(RelayConsumer router) {
    for (String dc : DATA_CENTERS) {
      ReadinessSnapshot s = router.readiness(dc).orElse(ReadinessSnapshot.EMPTY);
      out.printf("readiness of %s (revision %s)%n", dc, Long.toUnsignedString(s.revision()));
      List<Map.Entry<ModelKey, TopologyEntry>> entries = new ArrayList<>(s.entries().entrySet());
      entries.sort(Comparator.comparing((Map.Entry<ModelKey, TopologyEntry> e) -> e.getKey().namespace())
          .thenComparing(e -> e.getKey().canonicalModelId()));
      for (Map.Entry<ModelKey, TopologyEntry> e : entries) {
        TopologyEntry t = e.getValue();
        out.printf("  %s / %s: %s, present %s, missing %s%n", t.namespace(), t.canonicalModelId(), t.state(),
            t.presentRoles(), t.missingRoles());
        for (TopologyMember m : t.members()) {
          out.printf("    member %s %s -> pool %s%n", m.endpoint(), m.roles(),
              m.poolId().map(Object::toString).orElse("(none)"));
        }
      }
      s.quarantined().forEach((k, why) -> out.printf("  quarantined %s: %s%n", k, why));
    }
    out.println();
  }

  /** The self-check table: per request and DC, answered depth / matched tokens and [expected depth]. */
  private void printMatches(List<PrefixCheck> checks, int requestCount) {
    out.printf("prefix matches: answered blocks / matched tokens per DC, [expected blocks from the workers' caches]%n");
    StringBuilder header = new StringBuilder(String.format("  %-32s %6s", "request", "blocks"));
    for (String dc : DATA_CENTERS) {
      header.append(String.format("   %-16s", dc));
    }
    out.println(header);
    int perRequest = checks.size() / Math.max(1, requestCount);
    for (int i = 0; i < checks.size(); i += perRequest) {
      PrefixCheck first = checks.get(i);
      StringBuilder line = new StringBuilder(String.format("  %-32s %6d", first.request(), first.requestBlocks()));
      for (int j = i; j < i + perRequest; j++) {
        PrefixCheck c = checks.get(j);
        String answered = c.answeredBlocks() == PrefixCheck.NO_ANSWER
            ? "none" : c.answeredBlocks() + " / " + c.answeredTokens();
        line.append(String.format("   %-16s", answered + " [" + c.expectedBlocks() + "]" + (c.passed() ? "" : " !!")));
      }
      out.println(line);
    }
  }

  /** The router's replicas and counters. */
  private void printRouter(RelayConsumer router) {
    out.println();
    for (ReplicaStatus r : router.replicaStates()) {
      out.printf("router replica %-10s lane %d %s%n", r.source(), r.lane(), r.state());
    }
    ConsumerStats s = router.stats();
    out.printf("router counters: %d subscriptions, %d resubscriptions, %d frames applied, invalidations %s, "
            + "stream errors %s, catalog rejections %s%n", s.subscriptions(), s.resubscriptions(),
        s.framesApplied(), s.invalidations(), s.poolStreamErrors(), s.catalogRejections());
  }

  @Override
  public String toString() {
    return "EmbeddedDemo[" + String.join(", ", DATA_CENTERS) + ", deadline " + deadline + "]";
  }
}
