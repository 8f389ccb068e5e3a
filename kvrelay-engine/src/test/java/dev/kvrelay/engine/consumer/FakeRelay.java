package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.WireSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the test thread. A relay built from real {@link CkfProducer}s and the CBI1
 * encoder, with hand-driven streams: the catalog the test publishes, one hub per pool that serves a barrier
 * snapshot to each new subscriber and fans deltas out to every open subscriber.
 */
final class FakeRelay implements WireSource {

  /** Not thread-safe: one pool's producer and its open frame streams. */
  final class Hub {
    final ProducerIdentity identity;
    final CkfProducer producer;
    final List<QueueStream<PoolFrame>> streams = new ArrayList<>();
    private long lastExternal;
    private long nextExternal;
    private long lease;

    Hub(ProducerIdentity identity) {
      this.identity = identity;
      try {
        this.producer = CkfProducer.create(CkfProducerConfig.of(identity.ckfFormat(), 1_000, 1));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      this.nextExternal = identity.poolId().dcId().value() * 1_000_000L + 1;
    }

    /** Stores {@code tokenHashes} as one Stored event; {@code fromRoot} starts a new chain. */
    void store(long[] tokenHashes, boolean fromRoot) {
      if (tokenHashes.length == 0) {
        return;
      }
      StoredBatch batch = new StoredBatch().reset(1, 0);
      if (!fromRoot && lastExternal != 0) {
        batch.parent(lastExternal);
      }
      for (long h : tokenHashes) {
        lastExternal = nextExternal++;
        batch.addBlock(lastExternal, h);
      }
      producer.stored(batch);
    }

    /** Drains the producer and sends a delta to every live subscriber (asserts no oversized snapshot). */
    void publish() {
      CkfPublication p = producer.drain();
      if (p instanceof CkfDelta d) {
        send(d);
      } else if (p instanceof CkfSnapshot) {
        throw new AssertionError("test delta too large");
      }
    }

    private void send(CkfDelta d) {
      byte[] payload;
      try {
        payload = Cbi1Encoder.encodeDelta(identity.ckfFormat(), identity.poolId().dcId().value(), d.baseSequence(),
            d.sequence(), d.buckets(), d.words(), d.buckets().length);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      PoolFrame f = PoolFrame.of(relayIdentity, identity, d.baseSequence(), d.sequence(), 2, PoolFrame.Kind.DELTA,
          payload);
      for (QueueStream<PoolFrame> s : streams) {
        s.push(f);
      }
    }

    /** Sends a heartbeat at the current sequence to every live subscriber. */
    void heartbeat() {
      long seq = producer.lastSequence();
      for (QueueStream<PoolFrame> s : streams) {
        s.push(PoolFrame.of(relayIdentity, identity, seq, seq, 3, PoolFrame.Kind.HEARTBEAT, new byte[0]));
      }
    }

    QueueStream<PoolFrame> subscribe() {
      try {
        BarrierSnapshot b = producer.snapshotAfterBarrier(++lease);
        if (b.tail() != null) {
          send(b.tail());
        }
        long s = b.snapshot().sequence();
        QueueStream<PoolFrame> stream = new QueueStream<>();
        for (byte[] chunk : Cbi1Encoder.encodeSnapshot(identity.ckfFormat(), identity.poolId().dcId().value(), s,
            b.snapshot().words())) {
          stream.push(PoolFrame.of(relayIdentity, identity, s, s, 1, PoolFrame.Kind.SNAPSHOT_CHUNK, chunk));
        }
        streams.removeIf(q -> !q.isLive());
        streams.add(stream);
        return stream;
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    long[] words() {
      return producer.copyWords();
    }

    List<QueueStream<PoolFrame>> liveStreams() {
      streams.removeIf(q -> !q.isLive());
      return streams;
    }
  }

  RelayIdentity relayIdentity;
  private long revision;
  private List<KvPoolDescriptor> catalog = List.of();
  final Map<KvPoolId, Hub> hubs = new LinkedHashMap<>();
  final List<QueueStream<CatalogUpdate>> catalogStreams = new ArrayList<>();
  final List<QueueStream<TopologySnapshot>> readinessStreams = new ArrayList<>();
  final List<QueueStream<KvPoolLoadUpdate>> loadStreams = new ArrayList<>();
  final List<String> subscriberIds = new ArrayList<>();
  final ArrayDeque<RelayErrorReason> scriptedSubscribeErrors = new ArrayDeque<>();
  int subscribeCalls;
  private @Nullable TopologySnapshot readiness;
  private @Nullable KvPoolLoadUpdate load;

  FakeRelay(RelayIdentity relayIdentity) {
    this.relayIdentity = relayIdentity;
  }

  /** The hub of {@code identity}'s pool, created (with a fresh producer) when the identity is new. */
  Hub hub(ProducerIdentity identity) {
    Hub h = hubs.get(identity.poolId());
    if (h == null || !h.identity.equals(identity)) {
      if (h != null) {
        for (QueueStream<PoolFrame> s : h.liveStreams()) {
          s.fail(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "generation retired"));
        }
      }
      h = new Hub(identity);
      hubs.put(identity.poolId(), h);
    }
    return h;
  }

  /** Publishes a new catalog revision to every open catalog stream. */
  void publishCatalog(List<KvPoolDescriptor> pools) {
    catalog = List.copyOf(pools);
    revision++;
    for (KvPoolDescriptor d : pools) {
      hub(d.producer());
    }
    for (QueueStream<CatalogUpdate> s : catalogStreams) {
      s.push(currentCatalog());
    }
  }

  CatalogUpdate currentCatalog() {
    return CatalogUpdate.ofDescriptors(relayIdentity, revision, catalog);
  }

  void publishReadiness(TopologySnapshot snapshot) {
    readiness = snapshot;
    for (QueueStream<TopologySnapshot> s : readinessStreams) {
      s.push(snapshot);
    }
  }

  void publishLoad(KvPoolLoadUpdate window) {
    load = window;
    for (QueueStream<KvPoolLoadUpdate> s : loadStreams) {
      s.push(window);
    }
  }

  /** Restarts the relay under a new identity: every stream ends; the catalog revision starts again. */
  void restart(RelayIdentity newIdentity) {
    relayIdentity = newIdentity;
    revision = 0;
    for (QueueStream<CatalogUpdate> s : catalogStreams) {
      s.fail(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "restart"));
    }
    for (Hub h : hubs.values()) {
      for (QueueStream<PoolFrame> s : h.liveStreams()) {
        s.fail(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "restart"));
      }
    }
  }

  QueueStream<CatalogUpdate> lastCatalogStream() {
    return catalogStreams.get(catalogStreams.size() - 1);
  }

  @Override
  public RelayStream<CatalogUpdate> watchCatalog(String subscriberId) {
    subscriberIds.add(subscriberId);
    QueueStream<CatalogUpdate> s = new QueueStream<>();
    catalogStreams.add(s);
    s.push(currentCatalog());
    return s;
  }

  @Override
  public CompletableFuture<RelayStream<PoolFrame>> subscribePool(
      KvPoolId pool, ProducerIdentity expected, String subscriberId) {
    subscribeCalls++;
    subscriberIds.add(subscriberId);
    RelayErrorReason scripted = scriptedSubscribeErrors.poll();
    if (scripted != null) {
      return CompletableFuture.failedFuture(new RelayException(scripted, "scripted"));
    }
    Hub h = hubs.get(pool);
    boolean listed = catalog.stream().anyMatch(d -> d.poolId().equals(pool));
    if (h == null || !listed) {
      return CompletableFuture.failedFuture(new RelayException(RelayErrorReason.POOL_NOT_FOUND, "unknown pool"));
    }
    if (!h.identity.equals(expected)) {
      return CompletableFuture.failedFuture(new RelayException(RelayErrorReason.PRODUCER_CHANGED, "changed"));
    }
    return CompletableFuture.completedFuture(h.subscribe());
  }

  @Override
  public RelayStream<TopologySnapshot> watchReadiness(String subscriberId) {
    subscriberIds.add(subscriberId);
    QueueStream<TopologySnapshot> s = new QueueStream<>();
    readinessStreams.add(s);
    if (readiness != null) {
      s.push(readiness);
    }
    return s;
  }

  @Override
  public RelayStream<KvPoolLoadUpdate> watchPoolLoad(String subscriberId) {
    subscriberIds.add(subscriberId);
    QueueStream<KvPoolLoadUpdate> s = new QueueStream<>();
    loadStreams.add(s);
    if (load != null) {
      s.push(load);
    }
    return s;
  }

  /** This fake publishes no serving load: a stream that stays open and empty. */
  @Override
  public RelayStream<ServingLoadUpdate> watchServingLoad(String subscriberId) {
    subscriberIds.add(subscriberId);
    return new QueueStream<>();
  }
}
