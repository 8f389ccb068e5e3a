package dev.kvrelay.engine;

import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import java.util.function.UnaryOperator;

/**
 * Confined to the engine's control task: where the load ticker ({@link LoadRouting#tick}) hands each new
 * pool-load and serving-load window. The engine's own publisher puts them into its two window broadcasts.
 *
 * <p>Test seam: {@link RelayEngine.Builder#loadPublisher(UnaryOperator)} (package-private) may wrap the engine's
 * publisher, for example to make publication fail at a given window sequence (wan-grpc.md §9 C33, C45); other
 * modules reach it only through {@code EngineFaults} in the engine test sources. When unused the engine calls its
 * broadcasts directly (the identity wrapper), at no cost.
 *
 * <p>Either method may throw a {@link RuntimeException}: the host then stops the ticker for good and, unless the
 * engine is already closing, terminates the engine (wan-grpc.md §4.1: a load publisher error stops the transport and
 * cancels the whole relay).
 */
interface LoadPublisher {
  /** Publishes the next pool-load window (SubscribeKvPoolLoad). */
  void poolLoad(KvPoolLoadUpdate window);

  /** Publishes the next serving-load window (SubscribeServingLoad). */
  void servingLoad(ServingLoadUpdate window);
}
