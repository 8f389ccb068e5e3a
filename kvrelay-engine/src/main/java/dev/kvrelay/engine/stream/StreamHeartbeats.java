package dev.kvrelay.engine.stream;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (static factory only): periodic re-sends of the current snapshot for the catalog
 * and readiness streams (wan-grpc.md §2.3, §5).
 *
 * <p>Cadence (pinned by tests): the first heartbeat is due one interval after subscription, then every
 * interval after the previous deadline; published changes do not move the deadlines. At most one heartbeat
 * is pending: a tick that comes while the previous heartbeat has not been taken yet is missed, and so is a
 * tick whose timer fired more than {@value #LATE_TICK_TOLERANCE_MS} ms late (tokio {@code Interval}'s rule);
 * after a missed tick the next deadline is one interval after the moment it was handled (missed ticks are
 * delayed, never delivered in a burst). A heartbeat that is due when a change arrives is still sent, after the
 * change (both carry the current value, so the consumer never sees an older revision after a newer one).
 */
public final class StreamHeartbeats {
  /** A tick handled later than this after its deadline counts as missed (tokio's Interval uses 5 ms). */
  public static final long LATE_TICK_TOLERANCE_MS = 5;

  private StreamHeartbeats() {}

  /**
   * Decorates {@code upstream} so that every {@code intervalMs} the value of {@code current} is re-delivered
   * unchanged. Upstream messages and its end pass through first; no heartbeat follows the end.
   *
   * @param upstream the snapshot stream (it owns the admission permit; closing the result closes it)
   * @param current the source's current value ({@link SnapshotWatch#current()}), so a heartbeat is never
   *     older than what the upstream already delivered
   * @param intervalMs heartbeat interval, 1..{@link RelayConfigKey#MAX_TIMER_MS}
   * @param timers runs the heartbeat timer
   * @param nanoTime the clock the timer is measured with ({@code System::nanoTime} in production)
   * @throws IllegalArgumentException if {@code intervalMs} is out of range
   */
  public static <T> RelayStream<T> every(RelayStream<T> upstream, Supplier<T> current, long intervalMs,
      ActorScheduler timers, LongSupplier nanoTime) {
    if (intervalMs < 1 || intervalMs > RelayConfigKey.MAX_TIMER_MS) {
      throw new IllegalArgumentException("heartbeat interval must be 1.." + RelayConfigKey.MAX_TIMER_MS
          + " ms, got " + intervalMs);
    }
    HeartbeatStream<T> s = new HeartbeatStream<>(Objects.requireNonNull(upstream, "upstream"),
        Objects.requireNonNull(current, "current"), TimeUnit.MILLISECONDS.toNanos(intervalMs),
        Objects.requireNonNull(timers, "timers"), Objects.requireNonNull(nanoTime, "nanoTime"));
    s.start();
    return s;
  }

  /**
   * Thread-safe for one consuming thread at a time plus the timer and the upstream's producers: a stream
   * with heartbeats. Heartbeat state is guarded by its own lock (once per interval, never while calling out).
   */
  private static final class HeartbeatStream<T> extends SubscriberStream<T> {
    private static final long TOLERANCE_NANOS = TimeUnit.MILLISECONDS.toNanos(LATE_TICK_TOLERANCE_MS);

    private final RelayStream<T> upstream;
    private final Supplier<T> current;
    private final long intervalNanos;
    private final ActorScheduler timers;
    private final LongSupplier nanoTime;
    private final Object lock = new Object();
    private long deadline; // guarded by lock
    private boolean due; // guarded by lock
    private boolean missed; // guarded by lock

    HeartbeatStream(RelayStream<T> upstream, Supplier<T> current, long intervalNanos, ActorScheduler timers,
        LongSupplier nanoTime) {
      super(null);
      this.upstream = upstream;
      this.current = current;
      this.intervalNanos = intervalNanos;
      this.timers = timers;
      this.nanoTime = nanoTime;
    }

    void start() {
      synchronized (lock) {
        deadline = nanoTime.getAsLong() + intervalNanos;
      }
      timers.schedule(this::tick, intervalNanos);
      upstream.onAvailable(this::signal);
    }

    private void tick() {
      if (isClosed() || upstream.isFinished()) {
        return;
      }
      long now = nanoTime.getAsLong();
      long delay;
      boolean fire;
      synchronized (lock) {
        long late = now - deadline; // nanoTime differences only: overflow-safe
        if (late < 0) {
          fire = false; // woke early: wait for the deadline, nothing is due yet
        } else if (due) {
          missed = true; // the pending heartbeat absorbs this tick; re-armed when it is taken
          return;
        } else {
          fire = true;
          due = true;
          deadline = late > TOLERANCE_NANOS ? now + intervalNanos : deadline + intervalNanos;
        }
        delay = deadline - now;
      }
      timers.schedule(this::tick, delay);
      if (fire) {
        signal();
      }
    }

    @Override
    @Nullable T take() throws RelayException {
      T v = upstream.poll();
      if (v != null || upstream.isFinished()) {
        return v;
      }
      boolean reschedule;
      synchronized (lock) {
        if (!due) {
          return null;
        }
        due = false;
        reschedule = missed;
        if (missed) {
          missed = false;
          deadline = nanoTime.getAsLong() + intervalNanos;
        }
      }
      if (reschedule) {
        timers.schedule(this::tick, intervalNanos);
      }
      return current.get();
    }

    @Override
    boolean availableNow() {
      synchronized (lock) {
        return due;
      }
    }

    @Override
    boolean drained() {
      return upstream.isFinished();
    }

    @Override
    public void onAvailable(Runnable callback) {
      super.onAvailable(callback);
      upstream.onAvailable(this::signal); // runs at once if the upstream has something ready
    }

    @Override
    void detach() {
      upstream.close();
    }
  }
}
