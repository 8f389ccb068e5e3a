package dev.kvrelay.spi.eventplane;

import java.util.Objects;

/**
 * Immutable and thread-safe: one decoded event-plane message, its envelope and its payload: a
 * {@link KvEvent} on {@code kv-events}, a {@link Load} on {@code kv_metrics}.
 */
public sealed interface EventMessage permits EventMessage.KvEvent, EventMessage.Load {

  /** The envelope fields. */
  EventEnvelope envelope();

  /** Calls the listener method for this kind of message. */
  void deliverTo(EventListener listener);

  /**
   * Immutable and thread-safe: a {@code kv-events} message.
   *
   * @param envelope the envelope
   * @param event the decoded payload
   */
  record KvEvent(EventEnvelope envelope, RouterEvent event) implements EventMessage {
    /** Requires non-null parts. */
    public KvEvent {
      Objects.requireNonNull(envelope, "envelope");
      Objects.requireNonNull(event, "event");
    }

    @Override
    public void deliverTo(EventListener listener) {
      listener.onKvEvent(envelope, event);
    }
  }

  /**
   * Immutable and thread-safe: a {@code kv_metrics} message.
   *
   * @param envelope the envelope
   * @param load the decoded payload
   */
  record Load(EventEnvelope envelope, ActiveLoad load) implements EventMessage {
    /** Requires non-null parts. */
    public Load {
      Objects.requireNonNull(envelope, "envelope");
      Objects.requireNonNull(load, "load");
    }

    @Override
    public void deliverTo(EventListener listener) {
      listener.onLoad(envelope, load);
    }
  }
}
