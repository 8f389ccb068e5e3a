package dev.kvrelay.launcher.system;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the status page's own subscription to one of the engine's load-window streams (pool load or
 * serving load), holding the latest window it took. {@link #poll} (the status sampler's thread) opens the stream
 * when it has none, takes every window queued without waiting and keeps the last; when the stream ends (lagged,
 * publication unavailable, cleanly) it is closed, the end counted with its reason, and the next poll opens a new
 * one. {@link #latest()} and the counters are volatile reads of immutable values, so the HTTP thread never blocks
 * on the stream. {@link #poll} and {@link #close} hold this object's monitor (neither waits on anything).
 *
 * <p>The watch is a real subscriber: it counts toward the engine's load subscriber limit
 * ({@code max_load_subscribers} / {@code max_serving_load_subscribers}) and its subscriber gauges.
 *
 * @param <T> the window type
 */
final class LoadWindowWatch<T> implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LoadWindowWatch.class);

  /**
   * Thread-safe as the engine method it stands for: opens the stream ({@code WireSources.of(engine)::watchPoolLoad} or
   * {@code ::watchServingLoad}).
   */
  @FunctionalInterface
  interface Opener<T> {
    RelayStream<T> open(String subscriberId) throws RelayException;
  }

  /**
   * Immutable: the latest window taken and when.
   *
   * @param window the window
   * @param receivedAtMillis the local wall clock when the sampler took it (Unix ms)
   */
  record Latest<T>(T window, long receivedAtMillis) {}

  /**
   * Immutable: the watch's own state for the page.
   *
   * @param subscriberId the subscriber id the watch uses
   * @param open whether a stream is open now
   * @param opened streams opened since the system server started
   * @param ended of them, streams that ended (each is reopened on the next poll: the restarts)
   * @param openFailures attempts to open that the engine refused
   * @param windows windows taken since the system server started
   * @param lastEnd the reason the last stream ended or the last open failed ({@code SUBSCRIBER_LAGGED},
   *     {@code RESOURCE_LIMIT}, {@code FINISHED} for a clean end, …), or null
   */
  record State(String subscriberId, boolean open, long opened, long ended, long openFailures, long windows,
      @Nullable String lastEnd) {}

  private final String subscriberId;
  private final Opener<T> opener;
  private volatile @Nullable Latest<T> latest;
  private volatile State state;
  // guarded by this
  private @Nullable RelayStream<T> stream;
  private boolean closed;
  private boolean failing;

  LoadWindowWatch(String subscriberId, Opener<T> opener) {
    this.subscriberId = Objects.requireNonNull(subscriberId, "subscriberId");
    this.opener = Objects.requireNonNull(opener, "opener");
    this.state = new State(subscriberId, false, 0, 0, 0, 0, null);
  }

  /** The latest window taken, or null before the first. */
  @Nullable Latest<T> latest() {
    return latest;
  }

  /** The watch's state now. */
  State state() {
    return state;
  }

  /**
   * Opens the stream if none is open, then takes every window queued now (never waits), stamping the last with
   * {@code nowMillis}. Does nothing after {@link #close()}.
   */
  synchronized void poll(long nowMillis) {
    if (closed) {
      return;
    }
    State s = state;
    boolean opened = false;
    if (stream == null) {
      try {
        stream = opener.open(subscriberId);
        s = new State(subscriberId, true, s.opened() + 1, s.ended(), s.openFailures(), s.windows(), s.lastEnd());
        opened = true;
        failing = false;
      } catch (RelayException e) {
        if (!failing) {
          // a closed engine refuses with PUBLICATION_UNAVAILABLE: the normal end of a relay, not a warning
          if (e.reason() == RelayErrorReason.PUBLICATION_UNAVAILABLE) {
            LOG.info("status page: opening load watch {} failed: {}", subscriberId, e.getMessage());
          } else {
            LOG.warn("status page: opening load watch {} failed: {}", subscriberId, e.getMessage());
          }
        }
        failing = true;
        state = new State(subscriberId, false, s.opened(), s.ended(), s.openFailures() + 1, s.windows(),
            e.reason().name());
        return;
      }
    }
    RelayStream<T> open = stream;
    T last = null;
    long taken = 0;
    String end = null;
    try {
      for (T w = open.poll(); w != null; w = open.poll()) {
        last = w;
        taken++;
      }
      if (open.isFinished()) {
        end = "FINISHED";
      }
    } catch (RelayException e) {
      end = e.reason().name();
    }
    if (last != null) {
      latest = new Latest<>(last, nowMillis);
    }
    if (end != null) {
      LOG.info("status page: load watch {} ended ({}), reopening", subscriberId, end);
      open.close();
      stream = null;
      state = new State(subscriberId, false, s.opened(), s.ended() + 1, s.openFailures(), s.windows() + taken, end);
    } else if (taken != 0 || opened) {
      state = new State(subscriberId, true, s.opened(), s.ended(), s.openFailures(), s.windows() + taken,
          s.lastEnd());
    }
  }

  /** Closes the stream (releasing its admission permit); later polls do nothing. Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    if (stream != null) {
      stream.close();
      stream = null;
      State s = state;
      state = new State(subscriberId, false, s.opened(), s.ended(), s.openFailures(), s.windows(), s.lastEnd());
    }
  }
}
