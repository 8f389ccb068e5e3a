package dev.kvrelay.engine.stream;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe for one publishing thread plus any subscribing and consuming threads: the broadcast of load
 * windows (pool load and serving load, wan-grpc.md §2.3, §4.1 "Window mechanics"). It keeps the current
 * window and a ring of the last {@code capacity} published windows, nothing else.
 *
 * <p>A subscriber gets the current window at once, then every window published after it subscribed, in
 * order, skipping any window whose sequence (unsigned) is not larger than the last one it was sent. A
 * subscriber whose next window has already been overwritten in the ring ends with {@link
 * RelayErrorReason#SUBSCRIBER_LAGGED} (counted in {@link #stats()}); after {@link #close()} each subscriber
 * takes the windows still in the ring for it and then ends with {@link
 * RelayErrorReason#PUBLICATION_UNAVAILABLE}. Publishing never waits for a subscriber and never locks.
 *
 * @param <T> the window type (immutable values)
 */
public final class WindowBroadcast<T> implements AutoCloseable {
  /**
   * Immutable and thread-safe: a window in its ring slot.
   *
   * @param index the window's position in publication order (0 = the first {@link #publish})
   * @param window the window
   */
  private record Slot<T>(long index, T window) {}

  private final int capacity;
  private final ToLongFunction<T> sequenceOf;
  private final AtomicReferenceArray<@Nullable Slot<T>> ring;
  private final Subscribers subscribers = new Subscribers();
  private final AtomicLong lagged = new AtomicLong();
  private final AtomicLong ignoredAfterClose = new AtomicLong();
  private volatile T current;
  /** Windows published so far = the index of the next one; written only by the publisher. */
  private volatile long published;
  private long lastSequence; // publisher-confined
  private volatile boolean closed;

  /**
   * @param capacity ring size (LOAD_FANOUT_CAPACITY), at least 1
   * @param initial the startup window (sequence 0 in the relay), current until the first publication
   * @param sequenceOf a window's {@code window_sequence} (unsigned)
   * @throws IllegalArgumentException if {@code capacity < 1}
   */
  public WindowBroadcast(int capacity, T initial, ToLongFunction<T> sequenceOf) {
    if (capacity < 1) {
      throw new IllegalArgumentException("broadcast capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.sequenceOf = Objects.requireNonNull(sequenceOf, "sequenceOf");
    this.current = Objects.requireNonNull(initial, "initial");
    this.lastSequence = sequenceOf.applyAsLong(initial);
    this.ring = new AtomicReferenceArray<>(capacity);
  }

  /**
   * Makes {@code window} current, puts it in the ring (overwriting the oldest) and wakes every subscriber.
   * Only one thread may publish. After {@link #close()} the window is ignored (counted in {@link #stats()}).
   *
   * @throws IllegalArgumentException if the window's sequence is not larger (unsigned) than the previous
   *     window's; nothing changes
   */
  public void publish(T window) {
    Objects.requireNonNull(window, "window");
    long seq = sequenceOf.applyAsLong(window);
    if (closed) {
      ignoredAfterClose.incrementAndGet();
      return;
    }
    if (Long.compareUnsigned(seq, lastSequence) <= 0) {
      throw new IllegalArgumentException("window sequence " + Long.toUnsignedString(seq)
          + " does not follow " + Long.toUnsignedString(lastSequence));
    }
    long index = published;
    ring.set((int) (index % capacity), new Slot<>(index, window));
    current = window;
    lastSequence = seq;
    published = index + 1;
    SubscriberStream<?>[] subs = subscribers.snapshot();
    for (int i = 0; i < subs.length; i++) {
      subs[i].signal();
    }
  }

  /** The latest window (the initial one until the first publication). */
  public T current() {
    return current;
  }

  /**
   * Opens a stream: the current window at once, then every later window.
   *
   * @param permit released when the stream ends or is closed; null for an unlimited stream
   */
  public RelayStream<T> subscribe(@Nullable AdmissionPermit permit) {
    long start = published; // read before current: a window published in between is skipped by sequence
    return subscribeFrom(start, permit);
  }

  /** Subscribes with an explicit first ring index (≤ {@link #published}); tests use it to fix a race. */
  RelayStream<T> subscribeFrom(long start, @Nullable AdmissionPermit permit) {
    return subscribers.attach(new BroadcastStream(start, current, permit), () -> closed);
  }

  /** Ends every stream with PUBLICATION_UNAVAILABLE once it has taken what the ring still holds for it. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    subscribers.endAll();
  }

  /** True once {@link #close()} was called. */
  public boolean isClosed() {
    return closed;
  }

  /** The ring size. */
  public int capacity() {
    return capacity;
  }

  /** Counters and gauges of this broadcast. */
  public WindowBroadcastStats stats() {
    return new WindowBroadcastStats(published, ignoredAfterClose.get(), subscribers.size(), lagged.get(), closed);
  }

  /** Thread-safe for one consuming thread at a time plus the publisher: one subscription's ring cursor. */
  private final class BroadcastStream extends SubscriberStream<T> {
    private volatile @Nullable T first;
    private volatile long next;
    private volatile boolean sentAny;
    private volatile long lastSent;
    private volatile @Nullable RelayException terminal;

    BroadcastStream(long next, T first, @Nullable AdmissionPermit permit) {
      super(permit);
      this.next = next;
      this.first = first;
    }

    @Override
    @Nullable T take() throws RelayException {
      RelayException end = terminal;
      if (end != null) {
        throw end;
      }
      T f = first;
      if (f != null) {
        first = null;
        return sent(f);
      }
      for (;;) {
        long n = next;
        if (n < published) {
          Slot<T> slot = ring.get((int) (n % capacity));
          if (slot == null || slot.index() != n) {
            lagged.incrementAndGet();
            subscribers.remove(this);
            throw terminate(RelayErrorReason.SUBSCRIBER_LAGGED, "load subscriber fell behind the broadcast ring of "
                + capacity + " windows");
          }
          next = n + 1;
          T w = slot.window();
          if (sentAny && Long.compareUnsigned(sequenceOf.applyAsLong(w), lastSent) <= 0) {
            continue;
          }
          return sent(w);
        }
        if (!WindowBroadcast.this.closed) {
          return null;
        }
        if (next < published) {
          continue; // published just before the close
        }
        throw terminate(RelayErrorReason.PUBLICATION_UNAVAILABLE, "load publisher closed");
      }
    }

    private T sent(T window) {
      lastSent = sequenceOf.applyAsLong(window);
      sentAny = true;
      return window;
    }

    private RelayException terminate(RelayErrorReason reason, String message) {
      RelayException e = new RelayException(reason, message);
      terminal = e;
      return e;
    }

    @Override
    boolean availableNow() {
      return terminal != null || first != null || next < published || WindowBroadcast.this.closed;
    }

    @Override
    boolean drained() {
      // closed is read before published: once closed, published no longer grows
      return terminal != null || (first == null && WindowBroadcast.this.closed && next >= published);
    }

    @Override
    void detach() {
      subscribers.remove(this);
    }
  }
}
