package dev.kvrelay.engine.load;

import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the load publisher. Builds the pool-load windows of wan-grpc.md §4.1: the
 * startup window has {@code window_sequence} 0, each tick +1; the caller drives the ticks and passes the
 * clock in. Every window lists the given pools sorted by pool id, even if unchanged or empty.
 */
public final class LoadWindows {

  private final long windowMs;
  private @Nullable KvPoolLoadUpdate current;

  /** @param windowMs the configured window ({@code load_window_ms}, u64) */
  public LoadWindows(long windowMs) {
    this.windowMs = windowMs;
  }

  /** Resumes after {@code current} (tests: sequence exhaustion). */
  LoadWindows(long windowMs, KvPoolLoadUpdate current) {
    this.windowMs = windowMs;
    this.current = current;
  }

  /** The startup window, sequence 0. */
  public KvPoolLoadUpdate initial(long nowMs, List<PoolLoadReport> pools) throws LoadWindowException {
    if (current != null) {
      throw new LoadWindowException(LoadWindowException.Reason.ALREADY_STARTED, "initial window already built");
    }
    KvPoolLoadUpdate window = build(0, nowMs, pools);
    current = window;
    return window;
  }

  /** The next window, sequence + 1. */
  public KvPoolLoadUpdate next(long nowMs, List<PoolLoadReport> pools) throws LoadWindowException {
    KvPoolLoadUpdate last = current;
    if (last == null) {
      throw new LoadWindowException(LoadWindowException.Reason.NOT_STARTED, "no initial window");
    }
    if (last.windowSequence() == -1L) {
      throw new LoadWindowException(LoadWindowException.Reason.SEQUENCE_EXHAUSTED, "window sequence exhausted");
    }
    KvPoolLoadUpdate window = build(last.windowSequence() + 1, nowMs, pools);
    current = window;
    return window;
  }

  /** The latest window, if any (what a new subscriber receives first). */
  public Optional<KvPoolLoadUpdate> current() {
    return Optional.ofNullable(current);
  }

  private KvPoolLoadUpdate build(long sequence, long nowMs, List<PoolLoadReport> pools)
      throws LoadWindowException {
    List<PoolLoadReport> sorted = new ArrayList<>(pools);
    sorted.sort(Comparator.comparing(r -> r.producer().poolId()));
    List<KvPoolLoadEntry> entries = new ArrayList<>(sorted.size());
    for (int i = 0; i < sorted.size(); i++) {
      if (i > 0 && sorted.get(i - 1).producer().poolId().equals(sorted.get(i).producer().poolId())) {
        throw new LoadWindowException(LoadWindowException.Reason.DUPLICATE_POOL,
            "duplicate pool " + sorted.get(i).producer().poolId());
      }
      entries.add(sorted.get(i).toEntry());
    }
    return new KvPoolLoadUpdate(sequence, nowMs, windowMs, entries);
  }
}
