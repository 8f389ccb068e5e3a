package dev.kvrelay.engine.stream;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe for one consuming thread at a time plus any producing threads: the mechanics every stream of
 * this package shares — waking a {@link #poll(long, TimeUnit) timed poll}, running the {@link
 * #onAvailable(Runnable) availability callback} (never under a lock), releasing the admission permit once
 * the stream has ended or is closed, and consumer-side close.
 *
 * <p>Subclasses supply {@link #take()} (the next message, or the terminal error once drained), {@link
 * #availableNow()} and {@link #drained()}, and call {@link #signal()} whenever something became available.
 *
 * @param <T> the message type
 */
abstract class SubscriberStream<T> implements RelayStream<T> {
  private final Object monitor = new Object();
  private final AtomicReference<@Nullable AdmissionPermit> permit;
  private volatile long wakeups;
  private volatile @Nullable Runnable callback;
  private volatile boolean closed;

  SubscriberStream(@Nullable AdmissionPermit permit) {
    this.permit = new AtomicReference<>(permit);
  }

  /**
   * The next message, or null if none is ready (or the stream ended cleanly and is drained).
   *
   * @throws RelayException the terminal error, once every message before it was taken
   */
  abstract @Nullable T take() throws RelayException;

  /** True if a message or the end (clean or error) can be taken now. */
  abstract boolean availableNow();

  /** True once the stream has ended and no message is left (only the end or the error remains). */
  abstract boolean drained();

  /** Detaches from the producer after a consumer-side close. */
  void detach() {}

  @Override
  public final @Nullable T poll() throws RelayException {
    if (closed) {
      return null;
    }
    T value;
    try {
      value = take();
    } catch (RelayException e) {
      releasePermit();
      throw e;
    }
    if (value == null) {
      releaseIfEnded();
    }
    return value;
  }

  @Override
  public final @Nullable T poll(long timeout, TimeUnit unit) throws RelayException, InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    for (;;) {
      long seen = wakeups;
      T value = poll();
      if (value != null || isFinished()) {
        return value;
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return null;
      }
      synchronized (monitor) {
        while (wakeups == seen && remaining > 0) {
          TimeUnit.NANOSECONDS.timedWait(monitor, remaining);
          remaining = deadline - System.nanoTime();
        }
      }
    }
  }

  @Override
  public void onAvailable(Runnable callback) {
    this.callback = java.util.Objects.requireNonNull(callback, "callback");
    if (closed || availableNow()) {
      callback.run();
    }
  }

  @Override
  public final boolean isFinished() {
    return closed || drained();
  }

  @Override
  public final void close() {
    if (closed) {
      return;
    }
    closed = true;
    releasePermit();
    detach();
    wake();
  }

  /** True after a consumer-side {@link #close()}. */
  final boolean isClosed() {
    return closed;
  }

  /** Something became available: wakes a timed poll, then runs the callback (no lock held). */
  final void signal() {
    wake();
    Runnable cb = callback;
    if (cb != null && !closed) {
      cb.run();
    }
  }

  /** The producer ended the stream: releases the permit at once if nothing is left, then signals. */
  final void ended() {
    releaseIfEnded();
    signal();
  }

  final void releaseIfEnded() {
    if (drained()) {
      releasePermit();
    }
  }

  private void releasePermit() {
    AdmissionPermit p = permit.getAndSet(null);
    if (p != null) {
      p.close();
    }
  }

  private void wake() {
    synchronized (monitor) {
      wakeups++;
      monitor.notifyAll();
    }
  }
}
