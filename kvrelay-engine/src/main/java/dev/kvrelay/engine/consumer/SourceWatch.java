package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wan.RelayStream;
import java.util.concurrent.atomic.AtomicBoolean;
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
  private final AtomicBoolean drainQueued = new AtomicBoolean();
  private final Runnable drainTask = this::drain;

  SourceWatch(ConsumerSource source, ConsumerContext context, SourceEvents events, String suffix) {
    this.source = source;
    this.context = context;
    this.events = events;
    this.subscriberId = context.subscriberBase + suffix;
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
      if (token.get() == t && drainQueued.compareAndSet(false, true)) {
        context.execute(drainTask);
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

  private void drain() {
    drainQueued.set(false);
    for (int i = 0; i < ConsumerContext.DRAIN_BUDGET; i++) {
      RelayStream<T> s = stream;
      if (s == null || context.closed()) {
        return;
      }
      T m;
      try {
        m = s.poll();
      } catch (RelayException e) {
        close();
        onEnd(e.reason());
        return;
      }
      if (m == null) {
        if (s.isFinished()) {
          close();
          onEnd(null);
        }
        return;
      }
      if (!onMessage(m)) {
        return;
      }
    }
    if (drainQueued.compareAndSet(false, true)) {
      context.execute(drainTask);
    }
  }
}
