package dev.kvrelay.grpc.client;

import dev.kvrelay.api.RelayException;

/**
 * Immutable and thread-safe (stateless apart from atomic counters): turns one received protobuf message into the
 * value a {@link dev.kvrelay.engine.wan.RelayStream} delivers, or refuses it with the typed error that ends the
 * stream.
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
