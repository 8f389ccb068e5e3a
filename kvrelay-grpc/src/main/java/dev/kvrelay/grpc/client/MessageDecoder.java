package dev.kvrelay.grpc.client;

import dev.kvrelay.api.RelayException;

/**
 * Not thread-safe in general: confined to the one stream it was made for (its serial message callback) — turns one
 * received protobuf message into the value a {@link dev.kvrelay.engine.wire.RelayStream} delivers, or refuses it with
 * the typed error that ends the stream.
 *
 * <p>Most decoders are stateless apart from atomic counters; the pool-frame decoder keeps its stream's producer
 * memo ({@code PoolFrameCodec}), so {@link WireDecoders} makes one per stream.
 *
 * @param <P> the protobuf message
 * @param <T> the delivered value
 */
@FunctionalInterface
interface MessageDecoder<P, T> {

  /**
   * Decodes one message.
   *
   * @throws RelayException the message is unusable; the stream ends with this error
   */
  T decode(P message) throws RelayException;
}
