package dev.kvrelay.spi.eventplane;

import java.util.OptionalLong;

/**
 * Confined to one delivery thread per subscription (never called concurrently for one subscription), in
 * the order messages arrived: receives one subscription's decoded messages and decode failures.
 *
 * <p>Different subscriptions may call the same listener from different threads. A method that throws
 * does not stop delivery: the plane logs the exception and goes on with the next message. No method is
 * called once {@link EventSubscription#close()} has returned.
 */
public interface EventListener {

  /** A {@code kv-events} message. */
  void onKvEvent(EventEnvelope envelope, RouterEvent event);

  /** A {@code kv_metrics} message. */
  void onLoad(EventEnvelope envelope, ActiveLoad load);

  /**
   * A message that could not be decoded or failed its identity checks; delivery goes on.
   *
   * @param error what was wrong
   * @param publisherId the sending publisher when it could be read (envelope or ZMQ frame 1)
   */
  void onDecodeError(EventDecodeException error, OptionalLong publisherId);

  /**
   * The transport lost or may have lost messages of this subscription (a disconnect, a slow-consumer drop,
   * a publisher's sequence gap); delivery goes on. Called on the delivery thread, never concurrently with
   * the other methods. A {@link EventPlaneFault.SequenceGap} comes right before the message that reveals
   * it; connection faults and drops come as soon as the delivery thread sees them, which may be a few
   * messages away from the moment they happened.
   *
   * <p>The default ignores it; the plane has already counted and logged it. Recovery-driving listeners
   * override it. Planes that cannot observe such losses (the in-memory plane) never call it.
   *
   * @param fault what happened
   */
  default void onFault(EventPlaneFault fault) {}
}
