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
   * A break in one publisher's envelope sequence, reported just before the message that revealed it (which is
   * then delivered as usual). Planes that do not track sequences never call it; the default ignores it.
   *
   * @param signal the new publisher, gap or regression seen
   */
  default void onSequenceBreak(SequenceBreak signal) {}
}
