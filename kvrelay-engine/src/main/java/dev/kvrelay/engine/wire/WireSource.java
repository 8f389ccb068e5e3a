package dev.kvrelay.engine.wire;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wan.RelaySource;
import dev.kvrelay.engine.wan.TopologySnapshot;
import java.util.concurrent.CompletableFuture;

/**
 * Thread-safe: the streams of one relay, whatever the transport — the engine in process ({@code RelayEngine}) or a
 * remote relay through the gRPC client — as the consumer reads them and the gRPC server serves them. Each method
 * opens one stream carrying exactly the messages of the matching RPC (wan-grpc.md §2.3), so one consumer serves
 * both transports and one server serves the engine.
 *
 * <p>Transport plumbing, not API: an embedder hands a {@link RelaySource} to the consumer and never names this
 * type; {@link WireSources#of} finds the wire behind a source.
 */
public interface WireSource extends RelaySource {


  /** WatchKvPoolCatalog: the current catalog at once, then one complete snapshot per change, plus heartbeats. */
  RelayStream<CatalogUpdate> watchCatalog(String subscriberId) throws RelayException;

  /**
   * SubscribeKvPool: completes with the pool's frame stream, or exceptionally with a {@link RelayException}
   * carrying the reason of wan-grpc.md §2.2; never blocks the caller.
   */
  CompletableFuture<RelayStream<PoolFrame>> subscribePool(KvPoolId pool, ProducerIdentity expected, String subscriberId);

  /** SubscribeServingReadiness: the current topology at once, then one per change, plus heartbeats. */
  RelayStream<TopologySnapshot> watchReadiness(String subscriberId) throws RelayException;

  /**
   * SubscribeServingReadiness as a consumer applies it (wan-grpc.md §7.5): each message with its entries validated
   * one by one, so that an entry a newer relay sends with an unknown state or role is quarantined on its own instead
   * of failing the whole stream. The default maps {@link #watchReadiness} (typed entries, nothing to quarantine);
   * a remote source overrides it to keep the received entries raw until validation.
   */
  default RelayStream<ReadinessUpdate> watchReadinessUpdates(String subscriberId) throws RelayException {
    return new MappedStream<>(watchReadiness(subscriberId), ReadinessUpdate::of);
  }

  /** SubscribeKvPoolLoad: the latest window at once, then every newer window. */
  RelayStream<KvPoolLoadUpdate> watchPoolLoad(String subscriberId) throws RelayException;

  /** SubscribeServingLoad: the latest serving-load window at once, then every newer window. */
  RelayStream<ServingLoadUpdate> watchServingLoad(String subscriberId) throws RelayException;
}
