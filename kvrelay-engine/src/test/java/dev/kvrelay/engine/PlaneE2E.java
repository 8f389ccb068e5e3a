package dev.kvrelay.engine;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.ChannelTransport;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventChannelKey;
import dev.kvrelay.spi.discovery.EventChannelRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe: confined to the test thread. An engine on a real event plane (the plugin module's), the
 * in-memory discovery and the in-memory request plane, attached to {@link PythonWorker}s: each worker's model card,
 * instance, one KV event source per rank (recoverable, its recovery target the worker's instance) and, on
 * channel-connecting planes, one ZMQ EventChannel per rank. Recovery queries reach the worker process: the
 * in-memory request plane hands each one to {@link PythonWorker#query}, which answers from the worker's true state.
 * {@link #awaitExact} waits until the pool's replica (the engine's pool stream) holds exactly the workers' live
 * blocks and returns how long that took.
 */
public final class PlaneE2E implements AutoCloseable {
  public static final DynamoEndpointId ENDPOINT = new DynamoEndpointId("dynamo", "backend", "generate");
  public static final long DEADLINE_MS = 60_000;
  public final InMemoryDiscovery discovery = new InMemoryDiscovery();
  public final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  public final RelayEngine engine;
  private final boolean channels;
  private final int ranks;
  private final Map<Long, PythonWorker> workers = new LinkedHashMap<>();
  private WireReplica replica;
  private KvPoolDescriptor pool;

  /**
   * An engine on {@code plane}; {@code directChannels} registers each publisher's ZMQ EventChannel (direct mode).
   */
  public PlaneE2E(EventPlane plane, boolean directChannels, int ranks) throws Exception {
    this.channels = directChannels;
    this.ranks = ranks;
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("dc-e2e").watchAll(true).expectedUniqueBlocks(8192)
        .build();
    engine = RelayEngine.builder().config(config).discovery(discovery).eventPlane(plane).requestPlane(requests)
        .poolThreads(2).build();
  }

  /** Advertises {@code w} (card, instance, sources, channels) and routes its recovery queries to it. */
  public void add(PythonWorker w) {
    workers.put(w.workerId, w);
    discovery.put(SimWorker.record(new dev.kvrelay.spi.discovery.ModelKey(ENDPOINT, w.workerId, null),
        RelayHarness.card("e2e-model", null, null, 0, ranks)));
    discovery.put(instance(w.workerId));
    requests.register(w.workerId, (endpoint, request) ->
        new InMemoryRequestPlane.Worker.Answer(workers.get(w.workerId).query(request), Duration.ZERO));
    advertise(w);
  }

  /** A worker restart: the old process's sources and channels are withdrawn, the new one's advertised. */
  public void replace(PythonWorker old, PythonWorker fresh) {
    for (PythonWorker.Publisher p : old.publishers()) {
      discovery.remove(new EventSourceKey(scope(), EventTopics.KV_EVENTS, p.publisherId()));
      if (channels) {
        discovery.remove(new EventChannelKey(scope(), EventTopics.KV_EVENTS, p.publisherId()));
      }
    }
    workers.put(fresh.workerId, fresh);
    advertise(fresh);
  }

  /** Advertises a ZMQ broker as upstream's broker registers it (component {@code zmq_broker}, topic broker). */
  public void broker(long instanceId, String xsub, String xpub) {
    discovery.put(new EventChannelRecord(
        new EventChannelKey(EventScope.component(ENDPOINT.namespace(), EventChannelSync.ZMQ_BROKER_COMPONENT), "broker",
            instanceId),
        new ChannelTransport.ZmqBroker(List.of(xsub), List.of(xpub))));
  }

  private void advertise(PythonWorker w) {
    for (PythonWorker.Publisher p : w.publishers()) {
      discovery.put(new EventSourceRecord(new EventSourceKey(scope(), EventTopics.KV_EVENTS, p.publisherId()),
          new KvEventSource(ENDPOINT, w.workerId, p.rank(), p.publisherId(), instance(w.workerId))));
      if (channels) {
        discovery.put(new EventChannelRecord(new EventChannelKey(scope(), EventTopics.KV_EVENTS, p.publisherId()),
            new ChannelTransport.Zmq(p.endpoint())));
      }
    }
  }

  private static EventScope scope() {
    return new EventScope.Endpoint(ENDPOINT);
  }

  private static EndpointRecord instance(long workerId) {
    return new EndpointRecord(new EndpointKey(ENDPOINT, workerId), new Transport.Tcp("127.0.0.1:9/" + workerId),
        "json", null);
  }

  /** The union of every current worker's live blocks (the exact model). */
  public Set<Long> model() throws Exception {
    Set<Long> all = new HashSet<>();
    for (PythonWorker w : workers.values()) {
      all.addAll(w.live());
    }
    return all;
  }

  /**
   * Waits (deadline {@link #DEADLINE_MS}) until the pool's subscriber replica equals the relay producer and holds
   * exactly the workers' live blocks, re-read on every attempt; while it waits, {@code traffic} runs once a second
   * (the workers keep publishing, as real ones do). Prints and returns the time it took in milliseconds.
   */
  public long awaitExact(String label, Runnable traffic) throws Exception {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    long nextTraffic = start + TimeUnit.SECONDS.toNanos(1);
    Throwable last = null;
    while (System.nanoTime() < deadline) {
      try {
        attach();
        engine.sync().get(10, TimeUnit.SECONDS);
        replica.drain();
        if (replica.ended != null) {
          String why = String.valueOf(replica.ended);
          replica = null;
          throw new AssertionError("pool stream ended: " + why);
        }
        long[] producer = engine.producerWords(pool.poolId()).get(10, TimeUnit.SECONDS);
        if (!replica.installed || producer == null || !java.util.Arrays.equals(producer, replica.words)) {
          throw new AssertionError("replica behind the producer");
        }
        RelayEngineScenarioTest.assertHolds(replica.words, pool.producer().ckfFormat(), model());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("E2E " + label + ": replica equals the workers' exact model after " + ms + " ms");
        return ms;
      } catch (AssertionError | java.util.concurrent.TimeoutException e) {
        last = e;
      }
      if (System.nanoTime() > nextTraffic) {
        traffic.run();
        nextTraffic = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      }
      Thread.sleep(20);
    }
    throw new AssertionError(label + ": replica did not reach the exact model in " + DEADLINE_MS + " ms; stats "
        + engine.stats(), last);
  }

  private void attach() throws Exception {
    KvPoolDescriptor d = RelayHarness.find(engine.catalog(), ENDPOINT).orElse(null);
    if (d == null) {
      throw new AssertionError("no pool yet");
    }
    if (replica == null || pool == null || !pool.producer().equals(d.producer())) {
      pool = d;
      replica = new WireReplica(d.producer(), engine.subscribePool(d.poolId(), d.producer(), "e2e")
          .get(10, TimeUnit.SECONDS));
    }
  }

  @Override
  public void close() throws Exception {
    engine.close();
    requests.close();
    for (PythonWorker w : workers.values()) {
      w.close();
    }
  }
}
