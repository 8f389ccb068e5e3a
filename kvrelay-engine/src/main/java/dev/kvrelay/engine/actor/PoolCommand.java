package dev.kvrelay.engine.actor;

import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.ckf.producer.RankReplacement;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Immutable and thread-safe (the reply futures are thread-safe): a command queued in the pool actor's
 * bounded mailbox (producer.md §3.1). Shutdown and Fence are priority commands:
 * {@link PoolActor#shutdown()} and {@link PoolActor#fence()}.
 */
public sealed interface PoolCommand
    permits PoolCommand.Apply, PoolCommand.Flush, PoolCommand.ResetRank, PoolCommand.ReplaceRanks,
        PoolCommand.Subscribe, PoolCommand.RetireLease, PoolCommand.Stats, PoolCommand.CopyWords {

  /** Immutable: applies one live router event of {@code member}, published by {@code publisherId}. */
  record Apply(MemberId member, long publisherId, RouterEvent event) implements PoolCommand {
    public Apply {
      Objects.requireNonNull(member, "member");
      Objects.requireNonNull(event, "event");
    }
  }

  /** Immutable: drains the pending window now. */
  enum Flush implements PoolCommand {
    INSTANCE
  }

  /** Immutable: removes every mapping of {@code member}, then drains; {@code degraded} is counted. */
  record ResetRank(MemberId member, boolean degraded) implements PoolCommand {
    public ResetRank {
      Objects.requireNonNull(member, "member");
    }
  }

  /** Immutable: replaces the lineages of some members transactionally, then drains. */
  record ReplaceRanks(List<RankReplacement> replacements) implements PoolCommand {
    public ReplaceRanks {
      replacements = List.copyOf(replacements);
    }
  }

  /**
   * Immutable: a new subscriber lease; the pending tail is published on the old lease, then {@code reply} gets the
   * barrier snapshot (or fails with a {@link PoolActorException}).
   */
  record Subscribe(long lease, CompletableFuture<BarrierSnapshot> reply) implements PoolCommand {
    public Subscribe {
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * Immutable: the hub holding {@code lease} went away (idle eviction, retirement): if that lease is still the
   * current one it is dropped, so nothing more is materialized until the next Subscribe; a stale lease is
   * ignored.
   */
  record RetireLease(long lease) implements PoolCommand {}

  /** Immutable: diagnostics; {@code reply} gets the actor's counters. */
  record Stats(CompletableFuture<PoolStats.Actor> reply) implements PoolCommand {
    public Stats {
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * Immutable: diagnostics ({@code Snapshot(diag)} of producer.md §3.1): {@code reply} gets a copy of the
   * producer's bucket words as they are now (published or not). Accepted after Shutdown or Fence, like Stats.
   */
  record CopyWords(CompletableFuture<long[]> reply) implements PoolCommand {
    public CopyWords {
      Objects.requireNonNull(reply, "reply");
    }
  }
}
