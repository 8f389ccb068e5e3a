package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.engine.consumer.GlobalViewAnswer;
import dev.kvrelay.engine.consumer.GlobalViewMatch;
import dev.kvrelay.engine.consumer.RelayConsumer;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three relays (three DCs) serve the same endpoint and model, so their pools share one indexer domain; one
 * {@link RelayConsumer} reads all three in process through {@link dev.kvrelay.engine.wan.RelaySource} and
 * answers prefix queries. Every answer is checked against an exact model of the workers' caches.
 */
@Timeout(120)
class MultiDcGlobalViewTest {
  static final String[] DCS = {"dc-a", "dc-b", "dc-c"};
  static final int PROMPTS = 120;

  @Test
  void globalViewAnswersEqualTheExactPrefixDepthPerDcWithNoFalseNegatives() throws Exception {
    SplittableRandom rnd = new SplittableRandom(7);
    List<RelayHarness> dcs = new ArrayList<>();
    Map<String, List<SimWorker>> workers = new HashMap<>();
    ScheduledExecutorService consumerThread = Executors.newSingleThreadScheduledExecutor();
    RelayConsumer consumer = null;
    try {
      long id = 500;
      for (String dc : DCS) {
        RelayHarness h = new RelayHarness(RelayHarness.defaultConfig(dc), true);
        dcs.add(h);
        List<SimWorker> ws = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
          ws.add(h.worker("ns/backend/generate", id++, card("llama", "aggregated", null, 0, 2), 0, 2, true, null)
              .start());
        }
        workers.put(dc, ws);
      }
      // Events published before a relay subscribed are not delivered, and a source bound after the pool's first
      // source update is restored on its first live event only (as upstream): so the workers publish only once each
      // relay has bound all four (worker, rank) sources, after its kv-events subscription exists.
      for (RelayHarness h : dcs) {
        h.awaitSourcesBound(4);
      }
      KvPoolDescriptor first = dcs.get(0).pool(RelayHarness.ep("ns/backend/generate"));
      RelayConsumer.Builder b = RelayConsumer.builder()
          .consumerInstance(99)
          .domain(first.poolId().indexerDomain())
          .format(first.producer().ckfFormat())
          .semantics(new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1))
          .maxAgeUs(60_000_000)
          .subscriberIdBase("router-under-test")
          .executor(consumerThread)
          .clocks(System::nanoTime, () -> System.currentTimeMillis() * 1000);
      for (int i = 0; i < DCS.length; i++) {
        b.source(DCS[i], dcs.get(i).engine);
      }
      consumer = b.build();
      consumer.start();

      // Each DC caches its own random subset of prompts, at random depths, on random workers and ranks.
      int[][] prompts = new int[PROMPTS][];
      for (int p = 0; p < PROMPTS; p++) {
        prompts[p] = RelayEngineScenarioTest.prompt(p, 8);
      }
      for (String dc : DCS) {
        for (int n = 0; n < PROMPTS; n++) {
          if (rnd.nextInt(3) == 0) {
            continue;
          }
          int p = rnd.nextInt(PROMPTS);
          int blocks = 1 + rnd.nextInt(8);
          int[] prefix = java.util.Arrays.copyOf(prompts[p], blocks * 16);
          List<SimWorker> ws = workers.get(dc);
          ws.get(rnd.nextInt(ws.size())).cache(rnd.nextInt(2), prefix);
        }
        if (rnd.nextBoolean()) {
          workers.get(dc).get(0).evictLeaves(0, 5);
        }
      }

      // The deadline only bounds a failing run: a loaded machine converges later, never differently.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      String problem = null;
      int falsePositives = 0;
      while (System.nanoTime() < deadline) {
        problem = null;
        falsePositives = 0;
        for (int p = 0; p < PROMPTS && problem == null; p++) {
          GlobalViewAnswer a = consumer.query(prompts[p], "llama");
          if (a.status() != GlobalViewAnswer.Status.ANSWERED || a.matches().size() != DCS.length) {
            problem = "prompt " + p + ": " + a;
            break;
          }
          for (GlobalViewMatch m : a.matches()) {
            String dc = dcOf(dcs, m);
            int exact = exactDepth(workers.get(dc), workers.get(dc).get(0).sequenceHashes(prompts[p]));
            if (m.depthBlocks() < exact) {
              problem = "false negative: prompt " + p + " " + dc + " answered " + m.depthBlocks() + " < " + exact
                  + " (relay " + dc + ": " + dcs.get(java.util.Arrays.asList(DCS).indexOf(dc)).engine.stats().pools()
                  + "; consumer: " + consumer.stats() + ")";
              break;
            }
            if (m.depthBlocks() > exact) {
              falsePositives++;
            }
            assertThat(m.matchedTokens()).isEqualTo(16L * m.depthBlocks());
          }
        }
        if (problem == null && falsePositives <= PROMPTS * DCS.length / 100) {
          break;
        }
        Thread.sleep(20);
      }
      assertThat(problem).as("every DC answers at least the exact depth (no false negatives)").isNull();
      // Non-vacuity from the workers' own state, independent of how far the answer loop got.
      long exactBlocks = 0;
      for (String dc : DCS) {
        for (int[] prompt : prompts) {
          exactBlocks += exactDepth(workers.get(dc), workers.get(dc).get(0).sequenceHashes(prompt));
        }
      }
      assertThat(exactBlocks).as("the run is not vacuous: many cached prefix blocks").isGreaterThan(PROMPTS * 3L);
      assertThat(falsePositives).as("fingerprint false positives stay rare").isLessThanOrEqualTo(PROMPTS * DCS.length / 100);
      // Each source's catalog as the consumer applied it: the relay's identity and its one pool, by the caller's name.
      for (int i = 0; i < DCS.length; i++) {
        RelayHarness h = dcs.get(i);
        dev.kvrelay.engine.wan.CatalogSnapshot c = consumer.catalog(DCS[i]).orElseThrow();
        assertThat(c.identity()).isEqualTo(h.engine.identity());
        assertThat(c.pools()).containsExactly(h.pool(RelayHarness.ep("ns/backend/generate")));
      }
      assertThat(consumer.catalog("no-such-dc")).isEmpty();
      dev.kvrelay.engine.consumer.ConsumerStats stats = consumer.stats();
      assertThat(stats.framesApplied()).as("frames reached the replicas").isPositive();
      assertThat(stats.sourcesStopped()).isZero();
      assertThat(stats.catalogRejections().values()).allMatch(n -> n == 0);
    } finally {
      if (consumer != null) {
        consumer.close();
      }
      consumerThread.shutdownNow();
      for (RelayHarness h : dcs) {
        h.close();
      }
    }
  }

  private static String dcOf(List<RelayHarness> dcs, GlobalViewMatch m) {
    for (int i = 0; i < DCS.length; i++) {
      if (dcs.get(i).engine.config().dcId().equals(m.pool().dcId())) {
        return DCS[i];
      }
    }
    throw new AssertionError("unknown dc " + m.pool());
  }

  /** Leading blocks of the request cached by some worker of the DC (caches are prefix-closed). */
  private static int exactDepth(List<SimWorker> ws, long[] sequence) {
    Set<Long> live = new HashSet<>();
    for (SimWorker w : ws) {
      live.addAll(w.liveCanonicals());
    }
    int d = 0;
    while (d < sequence.length && live.contains(sequence[d])) {
      d++;
    }
    return d;
  }
}
