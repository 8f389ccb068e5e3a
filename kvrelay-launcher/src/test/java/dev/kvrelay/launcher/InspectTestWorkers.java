package dev.kvrelay.launcher;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.ckf.hashing.BlockHashSalt;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.util.List;

/**
 * Not thread-safe (one test thread): test access to the demo's simulated worker for the inspect tests in
 * {@code dev.kvrelay.launcher.inspect} (DemoWorker is package-private): a worker that serves a LoRA adapter of its
 * base model, as Dynamo advertises one (a base card plus an adapter card under a model suffix), and whose cached
 * blocks are hashed with the adapter's salt, as a LoRA request's are.
 */
public final class InspectTestWorkers {
  private InspectTestWorkers() {}

  /** Not thread-safe (one test thread): one started adapter worker. */
  public static final class AdapterWorker {
    private final DemoWorker worker;

    private AdapterWorker(DemoWorker worker) {
      this.worker = worker;
    }

    /** Caches the full blocks of {@code tokens}, salted with the adapter, on rank 0; returns the blocks stored. */
    public int cache(int[] tokens) {
      return worker.cache(0, tokens);
    }
  }

  /**
   * Starts a worker on {@code endpoint} ({@code ns/comp/ep}) serving {@code baseModel} and the LoRA adapter
   * {@code adapter} (runtime {@code lora.name}) under the served name {@code servedName}, with the demo's block size.
   */
  public static AdapterWorker startAdapter(String endpoint, long workerId, String baseModel, String servedName,
      String adapter, InMemoryDiscovery discovery, InMemoryEventPlane plane, InMemoryRequestPlane requests)
      throws Exception {
    String[] p = endpoint.split("/");
    DynamoEndpointId id = new DynamoEndpointId(p[0], p[1], p[2]);
    TokenBlockHasher hasher = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1,
        SystemTestWorkers.BLOCK_SIZE, BlockHashSalt.of(adapter, ""));
    DemoWorker w = new DemoWorker("test/" + workerId, workerId, id, baseModel, List.of(), 1, hasher, discovery, plane,
        requests);
    w.start();
    JsonObject card = JsonObject.builder()
        .put("display_name", servedName)
        .put("kv_cache_block_size", SystemTestWorkers.BLOCK_SIZE)
        .put("lora", JsonObject.builder().put("name", adapter).build())
        .build();
    discovery.put(ModelRecord.of(new ModelKey(id, workerId, "adapter-" + workerId), card));
    return new AdapterWorker(w);
  }
}
