package dev.kvrelay.engine.hub;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: guarded by the owning {@link HubSlot}'s monitor, except {@link Closing#run()} (called without it)
 * — the subscriber set of one publication hub: the streams a delta fans out to, and the streams removed under the
 * monitor that are terminated once it is released.
 *
 * <p>Each subscriber's connect, disconnect (with its reason) and lag is one log line with subscriber id, stream and
 * pool: connect and disconnect at INFO, lag at WARN; the matching counters are the registry's
 * ({@code openStreams}, {@code admitted}, {@code lagged}, {@code streamsRetired}).
 */
final class HubSubscribers {
  private static final Logger LOG = LoggerFactory.getLogger(HubSubscribers.class);
  private static final PoolStream[] NONE = new PoolStream[0];
  /** The {@code stream} label of the pool-frame stream (plugins-wire §5 metrics). */
  private static final String STREAM = "pool";

  private final KvPoolId pool;
  private final HubCounters counters;
  private PoolStream[] streams = NONE;
  private final ArrayDeque<Closing> closing = new ArrayDeque<>();

  HubSubscribers(KvPoolId pool, HubCounters counters) {
    this.pool = pool;
    this.counters = counters;
  }

  int count() {
    return streams.length;
  }

  /** Adds every member's lag to {@code out} (the caller holds the monitor; the streams' locks are not taken). */
  void lagStats(List<RelayEngineStats.SubscriberLag> out) {
    for (PoolStream s : streams) {
      out.add(s.lagStats());
    }
  }

  boolean isEmpty() {
    return streams.length == 0;
  }

  /** Joins a subscriber (the caller checked the limit). */
  void add(PoolStream stream) {
    PoolStream[] next = Arrays.copyOf(streams, streams.length + 1);
    next[streams.length] = stream;
    streams = next;
    counters.openStreams.increment();
    counters.admitted.increment();
  }

  /** Logs a joined subscriber (call without the monitor). */
  void logConnected(PoolStream stream, int subscribers) {
    LOG.info("subscriber connected: subscriber={} stream={} pool={} subscribers={}", stream.subscriberId(), STREAM,
        pool, subscribers);
  }

  /** Removes a stream that ended on its own side (close, progress timeout); false if it was not a member. */
  boolean remove(PoolStream stream) {
    PoolStream[] current = streams;
    for (int i = 0; i < current.length; i++) {
      if (current[i] == stream) {
        PoolStream[] next = new PoolStream[current.length - 1];
        System.arraycopy(current, 0, next, 0, i);
        System.arraycopy(current, i + 1, next, i, current.length - i - 1);
        streams = next.length == 0 ? NONE : next;
        counters.openStreams.decrement();
        return true;
      }
    }
    return false;
  }

  /**
   * Logs a stream removed by {@link #remove} (call without the monitor): a subscriber too slow to take its snapshot
   * was cut like a lagged one (WARN), any other end is a disconnect (INFO; {@code reason} null: closed by the
   * subscriber).
   */
  void logDisconnected(PoolStream stream, @Nullable RelayErrorReason reason, String why) {
    if (reason == RelayErrorReason.SNAPSHOT_PROGRESS_TIMEOUT) {
      LOG.warn("subscriber lagged and was cut: subscriber={} stream={} pool={} reason={} ({})", stream.subscriberId(),
          STREAM, pool, reason, why);
    } else {
      LOG.info("subscriber disconnected: subscriber={} stream={} pool={} reason={} ({})", stream.subscriberId(),
          STREAM, pool, reason == null ? "CLOSED" : reason, why);
    }
  }

  /**
   * Queues {@code frame} on every stream; a stream that lagged (queue full) is removed, to be cut once the monitor
   * is released. Returns the streams to notify.
   */
  PoolStream[] fanOut(PoolFrame frame) {
    PoolStream[] current = streams;
    boolean anyLagged = false;
    for (PoolStream s : current) {
      if (!s.enqueue(frame)) {
        anyLagged = true;
      }
    }
    if (anyLagged) {
      int kept = 0;
      int dropped = 0;
      PoolStream[] next = new PoolStream[current.length];
      PoolStream[] lagged = new PoolStream[current.length];
      for (PoolStream s : current) {
        if (s.isFinished()) {
          lagged[dropped++] = s;
        } else {
          next[kept++] = s;
        }
      }
      counters.openStreams.add(-dropped);
      streams = kept == 0 ? NONE : Arrays.copyOf(next, kept);
      closing.add(new Closing(Arrays.copyOf(lagged, dropped), null, "lagged"));
    }
    return current;
  }

  /** Removes every stream; they end with {@code reason} once {@link #pollClosing()}'s batch is run. */
  void closeAll(RelayErrorReason reason, String why) {
    PoolStream[] current = streams;
    streams = NONE;
    if (current.length > 0) {
      counters.openStreams.add(-current.length);
      if (reason == RelayErrorReason.PUBLICATION_UNAVAILABLE) {
        counters.streamsRetired.add(current.length);
      }
      closing.add(new Closing(current, reason, why));
    }
  }

  /** The next batch of removed streams to terminate, or null. */
  @Nullable Closing pollClosing() {
    return closing.poll();
  }

  /**
   * Immutable: streams removed under the monitor, to be terminated after it (reason null: lagged, already marked by
   * {@link PoolStream#enqueue}).
   */
  final class Closing {
    private final PoolStream[] removed;
    private final @Nullable RelayErrorReason reason;
    private final String message;

    Closing(PoolStream[] removed, @Nullable RelayErrorReason reason, String message) {
      this.removed = removed;
      this.reason = reason;
      this.message = message;
    }

    /** Terminates (or, if lagged, finishes the termination of) every stream and logs it; never with the monitor. */
    void run() {
      for (PoolStream s : removed) {
        if (reason == null) {
          LOG.warn("subscriber lagged and was cut: subscriber={} stream={} pool={} reason={}", s.subscriberId(),
              STREAM, pool, RelayErrorReason.SUBSCRIBER_LAGGED);
          s.completeTermination();
        } else {
          LOG.info("subscriber disconnected: subscriber={} stream={} pool={} reason={} ({})", s.subscriberId(),
              STREAM, pool, reason, message);
          s.terminate(reason, message);
        }
      }
    }
  }
}
