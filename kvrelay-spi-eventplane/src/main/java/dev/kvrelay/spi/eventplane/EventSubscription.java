package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.EventScope;

/**
 * Thread-safe: one subscription to a topic in a scope, delivering to its {@link EventListener} on one
 * delivery thread; it can be told which publishers' channels to connect to.
 */
public interface EventSubscription extends AutoCloseable {

  /** The scope subscribed. */
  EventScope scope();

  /** The topic subscribed, e.g. {@code kv-events}. */
  String topic();

  /**
   * Starts receiving the publisher behind {@code channel} (ZMQ: connect the SUB socket; messages whose
   * frame-1 publisher is not a connected channel's are rejected). Idempotent. Planes that receive every
   * publisher of the subject anyway ({@link EventPlane#connectsToChannels()} false) ignore it.
   *
   * @throws EventPlaneException if the channel is malformed or of a kind this plane cannot use, or the
   *     subscription is closed
   */
  void connect(ChannelLocator channel) throws EventPlaneException;

  /** Stops receiving the publisher behind {@code channel}; unknown channels are ignored. */
  void disconnect(ChannelLocator channel);

  /**
   * Stops delivery. When it returns, the listener is not called again (unless called from the listener
   * itself, in which case the current callback is the last). Idempotent.
   */
  @Override
  void close();
}
