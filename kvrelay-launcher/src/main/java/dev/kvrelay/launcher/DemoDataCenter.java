package dev.kvrelay.launcher;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.RelayConfigException;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.RelayEngineException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Thread-safe (the worker list is guarded by this object's monitor; the engine and the planes are thread-safe
 * themselves): one data center of the demo. It holds the DC's own discovery store, event plane
 * and request plane, a {@link RelayEngine} watching them, and the simulated workers that advertise themselves
 * and publish their KV events there. Closing it stops the relay first, then the planes.
 */
final class DemoDataCenter implements AutoCloseable {
  private final String name;
  private final InMemoryDiscovery discovery = new InMemoryDiscovery();
  private final InMemoryEventPlane events = InMemoryEventPlane.create();
  private final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  private final RelayEngine relay;
  private final List<DemoWorker> workers = new ArrayList<>();

  private DemoDataCenter(String name, RelayEngineConfig config, int poolThreads) throws RelayEngineException {
    this.name = name;
    RelayEngine started = null;
    try {
      started = RelayEngine.builder()
          .config(config)
          .discovery(discovery)
          .eventPlane(events)
          .requestPlane(requests)
          .poolThreads(poolThreads)
          .build();
    } finally {
      if (started == null) {
        closePlanes();
      }
    }
    this.relay = started;
  }

  /**
   * Starts the relay of data center {@code name}: it watches every namespace of the DC's discovery store and
   * sizes each pool's CKF for {@code expectedUniqueBlocks} resident blocks.
   *
   * @throws RelayConfigException if the configuration is invalid (e.g. an empty DC name)
   * @throws RelayEngineException if the relay cannot start
   */
  static DemoDataCenter start(String name, long expectedUniqueBlocks, int poolThreads)
      throws RelayConfigException, RelayEngineException {
    RelayEngineConfig config = RelayEngineConfig.builder()
        .dcId(name)
        .watchAll(true)
        .expectedUniqueBlocks(expectedUniqueBlocks)
        .build();
    return new DemoDataCenter(name, config, poolThreads);
  }

  /** The DC name (its {@code DYN_DC_ID}). */
  String name() {
    return name;
  }

  /** The DC's relay; it is also the {@link dev.kvrelay.engine.wan.RelaySource} a router reads. */
  RelayEngine relay() {
    return relay;
  }

  /** The workers, in the order they were added. */
  synchronized List<DemoWorker> workers() {
    return List.copyOf(workers);
  }

  /**
   * Adds and starts a worker serving {@code model} on {@code endpoint}: it appears in the DC's discovery store at
   * once, and the relay picks it up asynchronously.
   *
   * @throws DiscoveryDecodeException if the worker's card does not decode (a bug in {@link DemoWorker})
   */
  synchronized DemoWorker addWorker(String workerName, long workerId, DynamoEndpointId endpoint, String model,
      List<String> aliases, int ranks, TokenBlockHasher hasher) throws DiscoveryDecodeException {
    DemoWorker w = new DemoWorker(name + "/" + workerName, workerId, endpoint, model, aliases, ranks, hasher,
        discovery, events, requests);
    w.start();
    workers.add(w);
    return w;
  }

  /** The pool the relay currently lists for {@code servingEndpoint}, if any. */
  Optional<KvPoolDescriptor> pool(DynamoEndpointId servingEndpoint) {
    return relay.catalog().pools().stream().filter(d -> d.servingEndpoint().equals(servingEndpoint)).findFirst();
  }

  /**
   * The exact prefix depth of a request in this DC: the number of leading blocks of its canonical chain that some
   * worker caches. Each rank caches whole prefixes (a block only after its parent, evicting leaves first), so the
   * union over workers is prefix-closed and this is exactly the depth a perfect index answers.
   */
  synchronized int exactDepth(long[] canonicalChain) {
    int depth = 0;
    while (depth < canonicalChain.length && heldBySomeWorker(canonicalChain[depth])) {
      depth++;
    }
    return depth;
  }

  private boolean heldBySomeWorker(long canonical) {
    for (DemoWorker w : workers) {
      if (w.holds(canonical)) {
        return true;
      }
    }
    return false;
  }

  /** Stops the relay (it ends every stream it serves), then the request plane, event plane and discovery. */
  @Override
  public void close() {
    try {
      relay.close();
    } finally {
      closePlanes();
    }
  }

  private void closePlanes() {
    requests.close();
    events.close();
    discovery.close();
  }

  @Override
  public String toString() {
    return "DemoDataCenter[" + name + ", " + workers().size() + " workers]";
  }
}
