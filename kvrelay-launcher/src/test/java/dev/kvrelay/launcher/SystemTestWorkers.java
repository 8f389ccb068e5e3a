package dev.kvrelay.launcher;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.util.List;

/**
 * Not thread-safe (one test thread): test access to the demo's simulated worker for the system server's tests in
 * {@code dev.kvrelay.launcher.system} (DemoWorker is package-private): a worker with one data-parallel rank that
 * advertises itself on the in-memory planes, answers recovery queries and caches token blocks.
 */
public final class SystemTestWorkers {
  /** The demo's block size. */
  public static final int BLOCK_SIZE = 16;

  private SystemTestWorkers() {}

  /** Not thread-safe (one test thread): one started worker. */
  public static final class Worker {
    private final DemoWorker worker;

    private Worker(DemoWorker worker) {
      this.worker = worker;
    }

    /** Caches the full blocks of {@code tokens} on rank 0; returns the blocks newly stored. */
    public int cache(int[] tokens) {
      return worker.cache(0, tokens);
    }

    /** Blocks held now. */
    public int cachedBlocks() {
      return worker.cachedBlocks();
    }
  }

  /** Starts a worker serving {@code model} on {@code endpoint} ({@code ns/comp/ep}). */
  public static Worker start(String endpoint, long workerId, String model, InMemoryDiscovery discovery,
      InMemoryEventPlane plane, InMemoryRequestPlane requests) throws Exception {
    String[] p = endpoint.split("/");
    TokenBlockHasher hasher = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, BLOCK_SIZE);
    DemoWorker w = new DemoWorker("test/" + workerId, workerId, new DynamoEndpointId(p[0], p[1], p[2]), model,
        List.of(), 1, hasher, discovery, plane, requests);
    w.start();
    return new Worker(w);
  }
}
