package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayErrorReason;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the consumer task (see {@link SourceWatch}) — a stream that feeds one view
 * (readiness or load): an order error or a non-fatal end resets only that view and reopens the stream after
 * backoff; CKF state is never touched (wan-grpc.md §7.5).
 *
 * @param <T> the stream's message
 */
abstract class ViewWatch<T> extends SourceWatch<T> {
  ViewWatch(ConsumerSource source, ConsumerContext context, SourceEvents events, String suffix) {
    super(source, context, events, suffix);
  }

  /** Applies one message to the view and publishes the view's snapshot. */
  abstract void apply(T message) throws StreamOrderException;

  /** Resets the view and publishes its empty snapshot. */
  abstract void resetView();

  @Override
  final boolean onMessage(T message) {
    try {
      apply(message);
      succeeded();
      return true;
    } catch (StreamOrderException e) {
      fail();
      return false;
    }
  }

  @Override
  final void onEnd(@Nullable RelayErrorReason reason) {
    if (reason != null && ConsumerContext.fatal(reason)) {
      events.stopSource(source);
    } else {
      fail();
    }
  }

  private void fail() {
    context.counters.watchError();
    resetView();
    reopenLater();
  }
}
