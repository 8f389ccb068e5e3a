package dev.kvrelay.engine;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe (one test thread): the launcher's diagnostics tests' view of the engine test-jar's
 * {@link RelayHarness} (in-memory discovery, event plane and request plane) with simulated workers; it lives in the
 * engine's package to reach the harness, and exposes only what those tests read.
 */
public final class DiagnosticsFixture implements AutoCloseable {
  private final RelayHarness harness;
  private SimWorker worker;

  /** An engine for DC {@code dcId} watching every namespace. */
  public DiagnosticsFixture(String dcId) throws Exception {
    this.harness = new RelayHarness(RelayHarness.defaultConfig(dcId), true);
  }

  /** The running engine. */
  public RelayEngine engine() {
    return harness.engine;
  }

  /** The in-memory discovery the engine watches. */
  public InMemoryDiscovery discovery() {
    return harness.discovery;
  }

  /** Starts an aggregated worker {@code workerId} for model {@code model} on {@code endpoint} ("ns/comp/ep"). */
  public void startWorker(String endpoint, long workerId, String model) {
    worker = harness.worker(endpoint, workerId, RelayHarness.card(model, "aggregated", null, 0, 1)).start();
  }

  /** The last started worker caches {@code tokens} on rank 0; returns the canonical hashes of its full blocks. */
  public long[] cache(int[] tokens) {
    return worker.cache(0, tokens);
  }

  /** The last started worker evicts its {@code n} deepest leaf blocks. */
  public int evict(int n) {
    return worker.evictLeaves(0, n);
  }

  /** The canonical hashes the last started worker holds now (the exact model). */
  public Set<Long> live() {
    return worker.liveCanonicals();
  }

  /** Waits until a pool serves {@code endpoint} ("ns/comp/ep"). */
  public KvPoolDescriptor awaitPool(String endpoint) throws InterruptedException {
    return harness.pool(RelayHarness.ep(endpoint));
  }

  /**
   * Waits until the pool's published state holds exactly the worker's live blocks (an independent wire replica
   * equals the producer's words and holds {@link #live()}), then returns the producer's words.
   */
  public long[] awaitExact(KvPoolDescriptor d) throws Exception {
    WireReplica replica = harness.subscribe(d, "diagnostics-fixture-replica");
    try {
      harness.awaitExact(replica, d, worker::liveCanonicals);
    } finally {
      replica.stream.close();
    }
    return harness.engine.producerWords(d.poolId()).get(RelayHarness.DEADLINE_MS, TimeUnit.MILLISECONDS);
  }

  /** The engine's producer words of {@code d} now (null if not active). */
  public long[] producerWords(KvPoolDescriptor d) throws Exception {
    return harness.engine.producerWords(d.poolId()).get(RelayHarness.DEADLINE_MS, TimeUnit.MILLISECONDS);
  }

  /** Asserts {@code words} hold exactly one fingerprint per hash of {@code live}, each in one of its two buckets. */
  public static void assertHolds(long[] words, CkfFormat format, Set<Long> live) {
    RelayEngineScenarioTest.assertHolds(words, format, live);
  }

  @Override
  public void close() {
    harness.close();
  }
}
