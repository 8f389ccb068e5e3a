package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.eventplane.PublisherFaults;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A seeded long run: many workers, ranks and pools; random stores, evictions, clears, lost and duplicated
 * events, worker restarts and deaths. After each phase every pool's subscriber replica equals its producer's
 * table and the table holds exactly the workers' live blocks (one fingerprint per distinct canonical hash), and
 * once every source is cleared every table is empty.
 */
@Timeout(120)
class RelayEngineRandomizedTest {
  static final int ENDPOINTS = 5;
  static final int WORKERS_PER_ENDPOINT = 3;
  static final int RANKS = 2;
  static final int STEPS = 4_000;
  static final int PHASES = 4;

  @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
  @org.junit.jupiter.params.provider.ValueSource(longs = {20261130L, 1L, 424242L})
  void seededLongRun_replicasEqualProducersAndProducersHoldExactlyTheLiveBlocks(long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    try (RelayHarness h = new RelayHarness()) {
      Map<String, List<SimWorker>> byEndpoint = new HashMap<>();
      long id = 1000;
      for (int e = 0; e < ENDPOINTS; e++) {
        String endpoint = "ns/backend" + e + "/generate";
        List<SimWorker> ws = new ArrayList<>();
        for (int k = 0; k < WORKERS_PER_ENDPOINT; k++) {
          // Every source is recoverable here: a live-only source loses, by design, events that precede its
          // advertisement or a gap (runtime-inputs.md §6.4 decision), so its exact state is not a model invariant;
          // RelayEngineScenarioTest covers live-only sources.
          ws.add(h.worker(endpoint, id++, card("model" + e, "aggregated", null, 0, RANKS), 0, RANKS, true, null)
              .start());
        }
        byEndpoint.put(endpoint, ws);
      }
      h.awaitCatalog(s -> s.pools().size() == ENDPOINTS);
      Map<String, WireReplica> replicas = new HashMap<>();
      for (String endpoint : byEndpoint.keySet()) {
        replicas.put(endpoint, null);
      }
      for (int phase = 0; phase < PHASES; phase++) {
        for (int step = 0; step < STEPS; step++) {
          String endpoint = "ns/backend" + rnd.nextInt(ENDPOINTS) + "/generate";
          List<SimWorker> ws = byEndpoint.get(endpoint);
          SimWorker w = ws.get(rnd.nextInt(ws.size()));
          int rank = rnd.nextInt(RANKS);
          int op = rnd.nextInt(1000);
          if (op < 700) {
            w.cache(rank, RelayEngineScenarioTest.prompt(rnd.nextInt(400), 1 + rnd.nextInt(6)));
          } else if (op < 900) {
            w.evictLeaves(rank, 1 + rnd.nextInt(4));
          } else if (op < 930) {
            w.clear(rank);
          } else if (op < 960) {
            w.loseNextEvent(rank); // a gap: incremental recovery from the worker's event log
          } else if (op < 980) {
            PublisherFaults.duplicateNext(w.publisher(rank), 1); // stale duplicate: dropped
          } else if (op < 995) {
            w.restart(); // new publisher ids: cold reset of every rank, then a full restore
          } else {
            w.die();
            w.restart();
          }
        }
        // A lost last event is only detectable from the event after it (event-id gaps), as with real workers:
        // every rank publishes two more events (the first may itself be the one the network drops).
        for (List<SimWorker> ws : byEndpoint.values()) {
          for (SimWorker w : ws) {
            for (int rank = 0; rank < RANKS; rank++) {
              w.cache(rank, RelayEngineScenarioTest.prompt(1_000_000 + (int) (id++), 1));
              w.cache(rank, RelayEngineScenarioTest.prompt(1_000_000 + (int) (id++), 1));
            }
          }
        }
        for (Map.Entry<String, List<SimWorker>> e : byEndpoint.entrySet()) {
          replicas.put(e.getKey(), awaitExact(h, replicas.get(e.getKey()), e.getKey(), e.getValue(), "p" + phase));
        }
      }
      // Every source cleared ⇒ every table empty (a clear is a barrier: it needs no follow-up event).
      for (List<SimWorker> ws : byEndpoint.values()) {
        for (SimWorker w : ws) {
          for (int rank = 0; rank < RANKS; rank++) {
            w.clear(rank);
            w.clear(rank);
          }
        }
      }
      for (Map.Entry<String, List<SimWorker>> e : byEndpoint.entrySet()) {
        WireReplica r = awaitExact(h, replicas.get(e.getKey()), e.getKey(), e.getValue(), "end");
        assertThat(r.words).containsOnly(0L);
      }
      RelayEngineStats stats = h.engine.stats();
      assertThat(stats.pools()).hasSize(ENDPOINTS);
      for (PoolStats p : stats.pools()) {
        assertThat(p.actor()).isNotNull();
        assertThat(p.actor().producer().mappings()).as("ownership maps empty once every source is cleared").isZero();
      }
    }
  }

  /**
   * Waits until a replica of the endpoint's current generation equals the producer and the producer holds exactly
   * the workers' live blocks; resubscribes when the generation changed or the stream ended.
   */
  private static WireReplica awaitExact(RelayHarness h, WireReplica r, String endpoint, List<SimWorker> ws,
      String tag) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    Throwable last = null;
    int attempt = 0;
    while (System.nanoTime() < deadline) {
      try {
        CatalogSnapshot c = h.awaitCatalog(s -> RelayHarness.find(s, RelayHarness.ep(endpoint)).isPresent());
        KvPoolDescriptor d = RelayHarness.find(c, RelayHarness.ep(endpoint)).orElseThrow();
        if (r == null || !r.expected.equals(d.producer()) || r.ended != null) {
          if (r != null) {
            r.stream.close();
          }
          r = h.subscribe(d, "router-" + endpoint + "-" + tag + "-" + attempt++);
        }
        h.awaitConverged(r, d.poolId());
        Set<Long> live = new HashSet<>();
        for (SimWorker w : ws) {
          live.addAll(w.liveCanonicals());
        }
        RelayEngineScenarioTest.assertHolds(r.words, d.producer().ckfFormat(), live);
        return r;
      } catch (AssertionError | java.util.concurrent.ExecutionException e) {
        last = e;
        Thread.sleep(10);
      }
    }
    StringBuilder diag = new StringBuilder();
    for (SimWorker w : ws) {
      diag.append("\n worker ").append(w.workerId).append(" recoverable=").append(w.recoverable)
          .append(" live=").append(w.liveCanonicals().size());
    }
    for (PoolStats p : h.engine.stats().pools()) {
      if (p.descriptor().servingEndpoint().equals(RelayHarness.ep(endpoint))) {
        diag.append("\n recovery ").append(p.recovery()).append("\n actor ").append(p.actor());
      }
    }
    throw new AssertionError("endpoint " + endpoint + " did not converge" + diag, last);
  }
}
