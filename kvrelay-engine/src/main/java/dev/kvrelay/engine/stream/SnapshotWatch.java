package dev.kvrelay.engine.stream;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: a latest-value watch for complete snapshots (the catalog and the readiness view, wan-grpc.md
 * §2.3, §5). A subscriber gets the current value at once, then each newer value; values published while it
 * was not reading are coalesced (only the latest is kept), so it may skip values but never sees an older
 * value after a newer one. Memory per subscriber is one version number.
 *
 * <p>{@link #close()} ends every stream cleanly after it has taken the latest value; a subscription to a
 * closed watch delivers the final value and then ends. Admission permits are released when a stream ends or
 * is closed.
 *
 * @param <T> the snapshot type (immutable values)
 */
public final class SnapshotWatch<T> implements AutoCloseable {
  /**
   * Immutable and thread-safe: a published value with its position in publication order.
   *
   * @param version 0 for the initial value, +1 per publication
   * @param value the snapshot
   */
  private record Versioned<T>(long version, T value) {}

  private final Subscribers subscribers = new Subscribers();
  private volatile Versioned<T> current;
  private volatile boolean closed;
  private long ignoredAfterClose; // guarded by this

  /** A watch whose current value is {@code initial}. */
  public SnapshotWatch(T initial) {
    this.current = new Versioned<>(0, Objects.requireNonNull(initial, "initial"));
  }

  /**
   * Makes {@code value} the current value and wakes every subscriber. Any thread; concurrent calls are
   * ordered by the watch. After {@link #close()} the value is ignored (counted in {@link #stats()}).
   */
  public void publish(T value) {
    Objects.requireNonNull(value, "value");
    synchronized (this) {
      if (closed) {
        ignoredAfterClose++;
        return;
      }
      current = new Versioned<>(current.version() + 1, value);
    }
    SubscriberStream<?>[] subs = subscribers.snapshot();
    for (int i = 0; i < subs.length; i++) {
      subs[i].signal();
    }
  }

  /** The latest published value (the initial one until the first publication). */
  public T current() {
    return current.value();
  }

  /**
   * Opens a stream that delivers the current value at once, then each newer value (coalesced).
   *
   * @param permit released when the stream ends or is closed; null for an unlimited stream
   */
  public RelayStream<T> subscribe(@Nullable AdmissionPermit permit) {
    return subscribers.attach(new WatchStream(permit), () -> closed);
  }

  /** Ends every stream cleanly (each first takes the latest value it has not seen). Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    subscribers.endAll();
  }

  /** True once {@link #close()} was called. */
  public boolean isClosed() {
    return closed;
  }

  /** Counters and gauges of this watch. */
  public synchronized SnapshotWatchStats stats() {
    return new SnapshotWatchStats(current.version(), ignoredAfterClose, subscribers.size(), closed);
  }

  /** Thread-safe for one consuming thread at a time plus the publishing threads: one subscription. */
  private final class WatchStream extends SubscriberStream<T> {
    /** The version last delivered; -1 before the first delivery. */
    private volatile long seen = -1;

    WatchStream(@Nullable AdmissionPermit permit) {
      super(permit);
    }

    @Override
    @Nullable T take() throws RelayException {
      Versioned<T> c = current;
      if (c.version() > seen) {
        seen = c.version();
        return c.value();
      }
      return null;
    }

    @Override
    boolean availableNow() {
      return SnapshotWatch.this.closed || current.version() > seen;
    }

    @Override
    boolean drained() {
      // closed first: once closed, current is final
      return SnapshotWatch.this.closed && current.version() <= seen;
    }

    @Override
    void detach() {
      subscribers.remove(this);
    }
  }
}
