package dev.kvrelay.benchmarks;

import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Not thread-safe: one JMH thread. Discovery watch → engine catalog latency on the in-memory backend (the engine's
 * own part of the path, without a store's network): each operation writes one LoRA adapter card of a live pool as raw
 * JSON ({@link InMemoryDiscovery#putJson}) or removes it, then waits (parking 20 µs between looks) until the
 * engine's catalog shows the changed registrations. The real backends' figures (etcd, file, kubernetes mock), which a
 * JMH harness cannot host here (etcd and the Python writers are external processes), come from {@code
 * EngineDiscoveryContract#watchToCatalogLatency_isLoggedOverManyCardChanges} in each plugin's tests.
 *
 * <p>Run short: {@code java -jar benchmarks/target/benchmarks.jar DiscoveryCatalogLatency -f 1 -wi 2 -i 3}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class DiscoveryCatalogLatencyBenchmark {
  private static final String NS = "bench";
  private static final long WORKER = 0x694d8a3f1c2b7e01L;
  private static final String ENDPOINT = "\"namespace\":\"bench\",\"component\":\"backend\",\"endpoint\":\"generate\"";
  private static final String INSTANCE_PATH = "bench/backend/generate/" + Long.toHexString(WORKER);

  private InMemoryDiscovery discovery;
  private InMemoryEventPlane plane;
  private RelayEngine engine;
  private boolean adapterPresent;

  @Setup(Level.Trial)
  public void start() throws Exception {
    discovery = new InMemoryDiscovery();
    plane = InMemoryEventPlane.create();
    engine = RelayEngine.builder()
        .config(RelayEngineConfig.builder().dcId("dc-bench").namespaces(java.util.List.of(NS))
            .expectedUniqueBlocks(4096).build())
        .discovery(discovery).eventPlane(plane).poolThreads(1).build();
    String id = Long.toUnsignedString(WORKER);
    put(DiscoveryKind.ENDPOINT, INSTANCE_PATH, "{\"type\":\"Endpoint\"," + ENDPOINT + ",\"instance_id\":" + id
        + ",\"transport\":{\"tcp\":\"127.0.0.1:9999/generate\"},\"request_plane_codec\":\"json\"}");
    put(DiscoveryKind.MODEL, INSTANCE_PATH, "{\"type\":\"Model\"," + ENDPOINT + ",\"instance_id\":" + id
        + ",\"card_json\":{\"display_name\":\"llama\",\"kv_cache_block_size\":16,\"worker_type\":\"aggregated\","
        + "\"runtime_config\":{\"data_parallel_start_rank\":0,\"data_parallel_size\":1,\"total_kv_blocks\":1000}}}");
    String endpointId = "{\"namespace\":\"bench\",\"component\":\"backend\",\"name\":\"generate\"}";
    put(DiscoveryKind.EVENT_SOURCE, "namespace/bench/component/backend/endpoint/generate/topic/kv-events/1f00",
        "{\"type\":\"EventSource\",\"scope\":{\"kind\":\"endpoint\",\"endpoint\":" + endpointId + "},\"topic\":"
            + "\"kv-events\",\"publisher_id\":7936,\"metadata\":{\"kv_state_endpoint\":" + endpointId
            + ",\"worker\":{\"worker_id\":" + id + ",\"dp_rank\":0},\"publisher_id\":7936}}");
    awaitRegistrations(1);
  }

  private void put(DiscoveryKind kind, String path, String json) {
    discovery.putJson(kind, path, json).ifPresent(e -> {
      throw new IllegalStateException("benchmark fixture does not decode: " + e.getMessage(), e);
    });
  }

  @TearDown(Level.Trial)
  public void stop() {
    engine.close();
    plane.close();
    discovery.close();
  }

  private CatalogSnapshot awaitRegistrations(int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      CatalogSnapshot c = engine.catalog();
      if (c.pools().size() == 1 && c.pools().get(0).registrations().size() == n) {
        return c;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("catalog did not reach " + n + " registrations: " + c);
      }
      LockSupport.parkNanos(20_000);
    }
  }

  /** One card change, from the store write to the catalog showing it. */
  @Benchmark
  public CatalogSnapshot adapterCardChangeToCatalog() throws Exception {
    String path = INSTANCE_PATH + "/sql";
    if (adapterPresent) {
      discovery.remove(dev.kvrelay.spi.discovery.DiscoveryKey.parseStorageKey("v1/mdc/" + path));
    } else {
      put(DiscoveryKind.MODEL, path, "{\"type\":\"Model\"," + ENDPOINT + ",\"instance_id\":"
          + Long.toUnsignedString(WORKER) + ",\"card_json\":{\"display_name\":\"llama-sql\",\"kv_cache_block_size\":16,"
          + "\"lora\":{\"name\":\"sql-lora\",\"max_gpu_lora_count\":4},\"worker_type\":\"aggregated\"},"
          + "\"model_suffix\":\"sql\"}");
    }
    adapterPresent = !adapterPresent;
    return awaitRegistrations(adapterPresent ? 2 : 1);
  }
}
