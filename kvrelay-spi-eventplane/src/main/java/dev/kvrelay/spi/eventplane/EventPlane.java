package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.EventScope;

/**
 * Thread-safe: a connection to one event plane (ZMQ, NATS, in-memory) from which subscriptions are made.
 */
public interface EventPlane extends AutoCloseable {

  /**
   * Subscribes to {@code topic} in {@code scope}. Messages on {@link EventTopics#KV_METRICS} are delivered
   * as {@link ActiveLoad}s, those on any other topic as {@link RouterEvent}s; the envelope's topic must
   * equal {@code topic}.
   *
   * @throws EventPlaneException if the plane is closed or the transport refuses the subscription
   */
  EventSubscription subscribe(EventScope scope, String topic, EventListener listener) throws EventPlaneException;

  /**
   * True if a subscription receives a publisher only after {@link EventSubscription#connect} to its
   * channel (ZMQ direct mode); false if it receives every publisher of the subject and ignores channels
   * (NATS, ZMQ broker).
   */
  boolean connectsToChannels();

  /** Closes every subscription and the transport. Idempotent. */
  @Override
  void close();
}
