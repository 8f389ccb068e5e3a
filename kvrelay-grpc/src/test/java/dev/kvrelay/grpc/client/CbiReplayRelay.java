package dev.kvrelay.grpc.client;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.proto.SubscribeKvPoolLoadRequest;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.SubscribeServingReadinessRequest;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import dev.kvrelay.grpc.wire.RelayStatus;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * Thread-safe: every method synchronizes on this relay. A fake remote relay with one pool backed by a real
 * {@link CkfProducer}: it serves its catalog, a barrier snapshot as real CBI1 SNAPSHOT_CHUNK frames to each pool
 * subscriber, CBI1 deltas on {@link #publish()}, one readiness snapshot and one load window.
 */
final class CbiReplayRelay extends KvEventRelayGrpc.KvEventRelayImplBase {
  final RelayIdentity relay;
  final KvPoolDescriptor descriptor;
  final TopologySnapshot readiness;
  private final CkfProducer producer;
  private final List<ServerCallStreamObserver<FilterUpdate>> frameStreams = new ArrayList<>();
  private long lastExternal;
  private long nextExternal;
  private long lease;
  int subscriptions;

  CbiReplayRelay(RelayIdentity relay, KvPoolDescriptor descriptor, TopologySnapshot readiness) {
    this.relay = relay;
    this.descriptor = descriptor;
    this.readiness = readiness;
    try {
      this.producer = CkfProducer.create(CkfProducerConfig.of(descriptor.producer().ckfFormat(), 1_000, 1));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    this.nextExternal = descriptor.poolId().dcId().value() * 1_000_000L + 1;
  }

  KvPoolId poolId() {
    return descriptor.poolId();
  }

  /** Stores {@code blockHashes} as one Stored event continuing the previous chain. */
  synchronized void store(long[] blockHashes) {
    StoredBatch batch = new StoredBatch().reset(1, 0);
    if (lastExternal != 0) {
      batch.parent(lastExternal);
    }
    for (long h : blockHashes) {
      lastExternal = nextExternal++;
      batch.addBlock(lastExternal, h);
    }
    producer.stored(batch);
  }

  /** Drains the producer and sends the delta, CBI1-encoded, to every open pool stream. */
  synchronized void publish() {
    CkfPublication p = producer.drain();
    if (!(p instanceof CkfDelta d)) {
      throw new AssertionError("expected a delta, got " + p);
    }
    send(d);
  }

  private void send(CkfDelta d) {
    FilterUpdate f = WireCodec.toProto(PoolFrame.of(relay, descriptor.producer(), d.baseSequence(), d.sequence(),
        System.currentTimeMillis() * 1000, PoolFrame.Kind.DELTA, encodeDelta(d)));
    frameStreams.removeIf(ServerCallStreamObserver::isCancelled);
    for (ServerCallStreamObserver<FilterUpdate> s : frameStreams) {
      s.onNext(f);
    }
  }

  private byte[] encodeDelta(CkfDelta d) {
    try {
      return Cbi1Encoder.encodeDelta(descriptor.producer().ckfFormat(), descriptor.poolId().dcId().value(),
          d.baseSequence(), d.sequence(), d.buckets(), d.words(), d.buckets().length);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public synchronized void watchKvPoolCatalog(WatchKvPoolCatalogRequest request,
      StreamObserver<KvPoolCatalogUpdate> out) {
    out.onNext(WireCodec.toProto(new CatalogSnapshot(relay, 1, List.of(descriptor))));
  }

  @Override
  public synchronized void subscribeKvPool(SubscribeKvPoolRequest request, StreamObserver<FilterUpdate> out) {
    subscriptions++;
    try {
      if (!WireCodec.producer(request.getExpectedProducer()).equals(descriptor.producer())) {
        out.onError(RelayStatus.toStatus(new RelayException(RelayErrorReason.PRODUCER_CHANGED, "changed")));
        return;
      }
    } catch (WireValidationException e) {
      out.onError(RelayStatus.toStatus(new RelayException(RelayErrorReason.INVALID_REQUEST, e.getMessage())));
      return;
    }
    try {
      BarrierSnapshot b = producer.snapshotAfterBarrier(++lease);
      if (b.tail() != null) {
        send(b.tail());
      }
      long s = b.snapshot().sequence();
      for (byte[] chunk : Cbi1Encoder.encodeSnapshot(descriptor.producer().ckfFormat(),
          descriptor.poolId().dcId().value(), s, b.snapshot().words())) {
        out.onNext(WireCodec.toProto(PoolFrame.of(relay, descriptor.producer(), s, s,
            System.currentTimeMillis() * 1000, PoolFrame.Kind.SNAPSHOT_CHUNK, chunk)));
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    frameStreams.add((ServerCallStreamObserver<FilterUpdate>) out);
  }

  @Override
  public void subscribeServingReadiness(SubscribeServingReadinessRequest request,
      StreamObserver<ServingReadinessUpdate> out) {
    out.onNext(WireCodec.toProto(relay, readiness));
  }

  @Override
  public void subscribeKvPoolLoad(SubscribeKvPoolLoadRequest request,
      StreamObserver<dev.kvrelay.grpc.proto.KvPoolLoadUpdate> out) {
    out.onNext(WireCodec.toProto(relay, new KvPoolLoadUpdate(0, System.currentTimeMillis(), 1000,
        List.of(new KvPoolLoadEntry(descriptor.producer(), 10, 100, 1, 1)))));
  }
}
