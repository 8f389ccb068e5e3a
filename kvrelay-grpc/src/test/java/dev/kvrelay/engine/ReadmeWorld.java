package dev.kvrelay.engine;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;

/**
 * Not thread-safe: confined to the thread of the README example's {@code main}. The world the README's
 * "Embedding" blocks assume (their free variables): the in-memory discovery, event and request planes with one
 * simulated worker serving {@code llama} (alias {@code chat}) that cached {@link #promptTokens}, and the indexer
 * domain, CKF format and query semantics of its pool. {@code ReadmeExampleTest} compiles the README blocks
 * against it.
 */
public final class ReadmeWorld implements AutoCloseable {
  /** The planes the README's relay is built on. */
  public final InMemoryDiscovery discovery = new InMemoryDiscovery();
  /** The event plane. */
  public final InMemoryEventPlane events = InMemoryEventPlane.create();
  /** The recovery request plane. */
  public final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  /** A prompt of 6 blocks of 16 tokens, all cached by the worker. */
  public final int[] promptTokens = RelayEngineScenarioTest.prompt(7_000, 6);
  /** The pool's indexer domain. */
  public final IndexerDomainId domain;
  /** The pool's CKF format. */
  public final CkfFormat format;
  /** The pool's query semantics. */
  public final KvQuerySemantics semantics = new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1);
  private final SimWorker worker;

  /**
   * Starts the worker and learns its pool's domain and format from a probe relay on the same planes (closed
   * again before the README's own relay starts).
   */
  public ReadmeWorld() throws Exception {
    worker = new SimWorker(discovery, events, requests, RelayHarness.ep("ns/backend/generate"), 901,
        RelayHarness.card("llama", "aggregated", null, 0, 1) + ",\"aliases\":[\"chat\"]", 0, 1, true, null, 16,
        null).start();
    worker.cache(0, promptTokens);
    try (RelayEngine probe = RelayEngine.builder()
        .config(RelayEngineConfig.builder().dcId("readme-probe").watchAll(true).build())
        .discovery(discovery).eventPlane(events).build()) {
      KvPoolDescriptor pool = awaitPool(probe);
      domain = pool.poolId().indexerDomain();
      format = pool.producer().ckfFormat();
    }
  }

  private static KvPoolDescriptor awaitPool(RelayEngine relay) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (!relay.catalog().pools().isEmpty()) {
        return relay.catalog().pools().get(0);
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("the worker's pool never reached the probe relay's catalog");
  }

  /** Stops the worker and closes the planes. */
  @Override
  public void close() {
    worker.die();
    requests.close();
    events.close();
    discovery.close();
  }
}
