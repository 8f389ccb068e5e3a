package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.actor.SerialTask;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the consumer task, except the availability callback (any thread) — one of a source's
 * streams (catalog, readiness or load): opens it, drains it on the consumer task when it signals availability
 * (polled, never waited on), and reopens it after backoff.
 *
 * <p>Every open, close and timer bumps a token; a callback or timer carrying an older token is stale and ignored.
 *
 * @param <T> the stream's message
 */
abstract class SourceWatch<T> {
  final ConsumerSource source;
  final ConsumerContext context;
  final SourceEvents events;
  final String subscriberId;
  private @Nullable RelayStream<T> stream;
  private final AtomicLong token = new AtomicLong();
  private int failures;
  /** Drains the stream on the consumer task, {@link ConsumerContext#DRAIN_BUDGET} messages per run. */
  private final SerialTask drain;

  SourceWatch(ConsumerSource source, ConsumerContext context, SourceEvents events, String suffix) {
    this.source = source;
    this.context = context;
    this.events = events;
    this.subscriberId = context.subscriberBase + suffix;
    this.drain = context.serialTask(subscriberId, this::drainBatch);
  }

  abstract RelayStream<T> openStream(String id) throws RelayException;

  /** Handles one message; false when the handler closed the stream (stop draining). */
  abstract boolean onMessage(T message);

  /** The stream ended: {@code reason} null for a clean end. */
  abstract void onEnd(@Nullable RelayErrorReason reason);

  void open() {
    close();
    if (context.closed() || source.stopped) {
      return;
    }
    long t = token.get();
    RelayStream<T> s;
    try {
      s = openStream(subscriberId);
    } catch (RelayException e) {
      onEnd(e.reason());
      return;
    }
    stream = s;
    s.onAvailable(() -> {
      if (token.get() == t) {
        drain.signal();
      }
    });
  }

  boolean isOpen() {
    return stream != null;
  }

  void close() {
    token.incrementAndGet();
    RelayStream<T> s = stream;
    stream = null;
    if (s != null) {
      s.close();
    }
  }

  void succeeded() {
    failures = 0;
  }

  void reopenLater() {
    close();
    long t = token.get();
    failures++;
    context.schedule(() -> {
      if (token.get() != t || context.closed() || source.stopped) {
        context.counters.staleCallback();
        return;
      }
      open();
    }, context.backoffNanos(failures));
  }

  /** One drain run; true if the budget ran out with messages perhaps left. */
  private boolean drainBatch() {
    for (int i = 0; i < ConsumerContext.DRAIN_BUDGET; i++) {
      RelayStream<T> s = stream;
      if (s == null || context.closed()) {
        return false;
      }
      T m;
      try {
        m = s.poll();
      } catch (RelayException e) {
        close();
        onEnd(e.reason());
        return false;
      }
      if (m == null) {
        if (s.isFinished()) {
          close();
          onEnd(null);
        }
        return false;
      }
      if (!onMessage(m)) {
        return false;
      }
    }
    return true;
  }
}
