package dev.kvrelay.engine.recovery;

import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.RankReplacement;
import dev.kvrelay.engine.stats.PoolStats.SourceRecoveryState;
import dev.kvrelay.engine.stats.PoolStats;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: written only by the pool's recovery serial task; its volatile fields (what {@link #stats} reads)
 * may be read from any thread. One bound source incarnation (a {@link SourceBinding}), its cursor and buffer.
 */
final class Slot {
  /** {@link #lastEventNanos} before the first event. */
  static final long NO_EVENT = Long.MIN_VALUE;
  final SourceBinding binding;
  final MemberId member;
  final boolean recoverable;
  boolean retired;
  volatile boolean fenced;
  /** RejectSource (producer.md §3.5): ineligible until its identity (publisher) changes; events are dropped. */
  volatile boolean rejected;
  boolean hasCursor;
  long cursor;
  volatile Phase phase = Phase.LIVE;
  volatile @Nullable EventBuffer buffer;
  int retries;
  long epoch;
  @Nullable Attempt attempt;
  @Nullable RankReplacement replacement;
  long replacementLast;
  int dumpSize;
  /** The attempt in flight was started by an event-plane fault (finding nothing after the cursor is a success). */
  boolean probe;
  /** An event-plane fault arrived while recovering: probe again after it (a full restore if reprobeFull). */
  boolean reprobe;
  boolean reprobeFull;
  /** Marked by a transport disconnect; cleared once the source recovered after it. */
  volatile boolean suspect;
  /** The recovery clock when the serial task handled the source's last live event, or {@link #NO_EVENT}. */
  volatile long lastEventNanos = NO_EVENT;
  /** Accepted {@code ResetRank}s of this incarnation (written by the serial task, read by {@link #stats}). */
  private final AtomicLong resets = new AtomicLong();

  Slot(SourceBinding binding, boolean recoverable) {
    this.binding = binding;
    this.member = binding.member();
    this.recoverable = recoverable;
  }

  /** Serial task only. */
  void countReset() {
    resets.incrementAndGet();
  }

  /** Any thread: this source's published state, {@code now} on the recovery's clock. */
  PoolStats.SourceRecovery stats(long now) {
    long last = lastEventNanos;
    EventBuffer b = buffer;
    SourceRecoveryState state;
    if (rejected) {
      state = SourceRecoveryState.REJECTED;
    } else if (fenced) {
      state = SourceRecoveryState.FENCED;
    } else {
      state = switch (phase) {
        case LIVE -> SourceRecoveryState.LIVE;
        case RECOVERING -> SourceRecoveryState.RECOVERING;
        case AWAITING_BATCH -> SourceRecoveryState.AWAITING_BATCH;
      };
    }
    return new PoolStats.SourceRecovery(member.workerId(), member.dpRank(), binding.publisherId(), state, recoverable,
        suspect, last == NO_EVENT ? -1 : Math.max(0, now - last) / 1_000_000L, resets.get(), b == null ? 0 : b.size());
  }
}
