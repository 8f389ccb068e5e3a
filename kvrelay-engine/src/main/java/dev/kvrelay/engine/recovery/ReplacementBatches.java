package dev.kvrelay.engine.recovery;


import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.RankReplacement;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.stats.PoolStats.QueryFailureKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Not thread-safe: confined to the pool's recovery serial task. The rank-replacement batches: sources whose tree dump
 * was folded wait here and go to the pool actor together as one {@code ReplaceRanks} once the batch window has been
 * quiet for {@code batchQuietMs}; while the initial wave is open (the recoverable sources of the first update, until
 * each has its dump or failed, or the attempt timeout passed) the batch waits for the whole wave.
 */
final class ReplacementBatches {
  private final RecoveryParts p;
  private final RecoverySettings settings;
  private final Counters counters;
  private final RecoveryTask task;
  private final LongSupplier nanoTime;
  private final Set<MemberId> initialWave = new HashSet<>();
  private boolean waveOpen;
  private final List<Slot> ready = new ArrayList<>();
  private long lastReadyNanos;
  private boolean quietArmed;

  ReplacementBatches(RecoveryParts parts) {
    this.p = parts;
    this.settings = parts.settings;
    this.counters = parts.counters;
    this.task = parts.task;
    this.nanoTime = parts.nanoTime;
  }

  /**
   * Opens the initial wave with the recoverable sources of {@code slots} and arms its deadline (the attempt
   * timeout); false if there is none, so no wave.
   */
  boolean openWave(Slot[] slots) {
    for (Slot s : slots) {
      if (s.recoverable) {
        initialWave.add(s.member);
      }
    }
    if (initialWave.isEmpty()) {
      return false;
    }
    waveOpen = true;
    task.timer(TimeUnit.MILLISECONDS.toNanos(settings.attemptTimeoutMs()), () -> {
      if (waveOpen) {
        waveOpen = false;
        initialWave.clear();
        if (!ready.isEmpty()) {
          armQuiet(TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs()));
        }
      }
    });
    return true;
  }

  /** {@code member} no longer holds the initial wave back (recovered, reset, rejected or removed). */
  void leaveWave(MemberId member) {
    initialWave.remove(member);
  }

  /** {@code s} has its replacement ({@link Phase#AWAITING_BATCH}): it joins the batch window. */
  void add(Slot s) {
    ready.add(s);
    lastReadyNanos = nanoTime.getAsLong();
    scheduleBatch();
  }

  /** {@code s} leaves the batch window (its replacement was invalidated). */
  void remove(Slot s) {
    ready.remove(s);
  }

  private void scheduleBatch() {
    if (waveOpen) {
      maybeCloseWave();
      if (waveOpen) {
        return;
      }
    }
    armQuiet(TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs()));
  }

  private void armQuiet(long delayNanos) {
    if (quietArmed) {
      return;
    }
    quietArmed = true;
    task.timer(delayNanos, this::quietFired);
  }

  private void quietFired() {
    quietArmed = false;
    if (ready.isEmpty() || waveOpen) {
      return;
    }
    long quiet = TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs());
    long since = nanoTime.getAsLong() - lastReadyNanos;
    if (since >= quiet) {
      flushBatch();
    } else {
      armQuiet(quiet - since);
    }
  }

  /** Closes the initial wave once every source still in it awaits the batch; the batch window then runs. */
  void maybeCloseWave() {
    if (!waveOpen) {
      return;
    }
    for (MemberId m : initialWave) {
      Slot s = p.lifecycle.slot(m);
      if (s != null && !s.retired && s.phase != Phase.AWAITING_BATCH) {
        return;
      }
    }
    waveOpen = false;
    initialWave.clear();
    if (!ready.isEmpty()) {
      armQuiet(TimeUnit.MILLISECONDS.toNanos(settings.batchQuietMs()));
    }
  }

  private void flushBatch() {
    List<Slot> batch = new ArrayList<>();
    List<RankReplacement> replacements = new ArrayList<>();
    for (Slot s : ready) {
      RankReplacement r = s.replacement;
      if (!s.retired && s.phase == Phase.AWAITING_BATCH && r != null) {
        batch.add(s);
        replacements.add(r);
      }
    }
    ready.clear();
    if (batch.isEmpty()) {
      return;
    }
    boolean accepted = p.submit(new PoolCommand.ReplaceRanks(replacements));
    if (accepted) {
      counters.add(Counter.REPLACEMENTS);
    }
    for (Slot s : batch) {
      s.replacement = null;
      if (accepted) {
        s.cursor = s.replacementLast;
        s.hasCursor = true;
        p.queries.recovered(s, "tree dump of " + s.dumpSize + " events");
      } else {
        p.queries.failAttempt(s, QueryFailureKind.SUBMIT_REJECTED);
      }
    }
  }
}
