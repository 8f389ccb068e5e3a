package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** Thread-safe (synchronized): a queue-backed test stream the test feeds, fails or finishes by hand. */
final class QueueStream<T> implements RelayStream<T> {
  private final ArrayDeque<T> queue = new ArrayDeque<>();
  private @Nullable RelayException error;
  private boolean ended;
  private boolean closed;
  private Runnable callback = () -> {};
  private @Nullable RuntimeException nextPollFailure;

  /** Queues a message (dropped if the consumer closed the stream) and signals availability. */
  void push(T message) {
    Runnable cb;
    synchronized (this) {
      if (closed || ended || error != null) {
        return;
      }
      queue.add(message);
      cb = callback;
    }
    cb.run();
  }

  /** Ends the stream with {@code e} after the queued messages. */
  void fail(RelayException e) {
    Runnable cb;
    synchronized (this) {
      error = e;
      cb = callback;
    }
    cb.run();
  }

  /** Ends the stream cleanly after the queued messages. */
  void finish() {
    Runnable cb;
    synchronized (this) {
      ended = true;
      cb = callback;
    }
    cb.run();
  }

  /** Makes the next poll throw {@code bug} (an unchecked failure of the transport), the queue left as it is. */
  synchronized void failNextPoll(RuntimeException bug) {
    nextPollFailure = bug;
  }

  synchronized boolean isClosed() {
    return closed;
  }

  synchronized boolean isLive() {
    return !closed && !ended && error == null;
  }

  @Override
  public synchronized @Nullable T poll() throws RelayException {
    RuntimeException bug = nextPollFailure;
    if (bug != null) {
      nextPollFailure = null;
      throw bug;
    }
    T m = queue.poll();
    if (m != null) {
      return m;
    }
    if (error != null) {
      throw error;
    }
    return null;
  }

  @Override
  public @Nullable T poll(long timeout, TimeUnit unit) throws RelayException {
    return poll();
  }

  @Override
  public void onAvailable(Runnable cb) {
    boolean now;
    synchronized (this) {
      callback = cb;
      now = !queue.isEmpty() || ended || error != null;
    }
    if (now) {
      cb.run();
    }
  }

  @Override
  public synchronized boolean isFinished() {
    return queue.isEmpty() && (ended || error != null);
  }

  @Override
  public synchronized void close() {
    closed = true;
    queue.clear();
  }
}
