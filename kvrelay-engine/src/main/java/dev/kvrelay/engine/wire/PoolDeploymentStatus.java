package dev.kvrelay.engine.wire;

import dev.kvrelay.spi.discovery.RuntimeConfig;
import java.util.Collection;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Immutable and thread-safe: the deployment facts of one pool (wire {@code PoolDeploymentStatus},
 * wan-grpc.md §1.7). Values are unsigned u64 carried in {@code long}s.
 *
 * @param liveWorkers workers with serving facts (runtime configs); unset when the pool has none, never 0
 * @param maxConcurrency saturating Σ({@code max_num_seqs} × {@code data_parallel_size}), set only while
 *     every worker declares {@code max_num_seqs} (and so only with {@code liveWorkers})
 */
public record PoolDeploymentStatus(OptionalLong liveWorkers, OptionalLong maxConcurrency) {

  /** A pool without serving facts: both fields unset (the message is present but empty). */
  public static final PoolDeploymentStatus EMPTY = new PoolDeploymentStatus(OptionalLong.empty(), OptionalLong.empty());

  /**
   * @throws IllegalArgumentException if {@code liveWorkers} is 0, or {@code maxConcurrency} is set without
   *     {@code liveWorkers}
   */
  public PoolDeploymentStatus {
    Objects.requireNonNull(liveWorkers, "liveWorkers");
    Objects.requireNonNull(maxConcurrency, "maxConcurrency");
    if (liveWorkers.isPresent() && liveWorkers.getAsLong() == 0) {
      throw new IllegalArgumentException("live_workers is unset, not 0, when the pool has no serving facts");
    }
    if (maxConcurrency.isPresent() && liveWorkers.isEmpty()) {
      throw new IllegalArgumentException("max_concurrency requires workers with serving facts");
    }
  }

  /**
   * The deployment facts of a pool whose workers have {@code runtimeConfigs} (one per worker): {@code
   * live_workers} = their number (unset when none); {@code max_concurrency} = saturating
   * Σ({@code max_num_seqs} × {@code data_parallel_size}) if every worker declares {@code max_num_seqs}.
   */
  public static PoolDeploymentStatus of(Collection<RuntimeConfig> runtimeConfigs) {
    if (runtimeConfigs.isEmpty()) {
      return EMPTY;
    }
    long sum = 0;
    boolean everyWorkerDeclares = true;
    for (RuntimeConfig config : runtimeConfigs) {
      OptionalLong maxNumSeqs = config.maxNumSeqs();
      if (maxNumSeqs.isEmpty()) {
        everyWorkerDeclares = false;
        break;
      }
      sum = saturatingAdd(sum, saturatingMultiply(maxNumSeqs.getAsLong(), config.dataParallelSize()));
    }
    return new PoolDeploymentStatus(OptionalLong.of(runtimeConfigs.size()),
        everyWorkerDeclares ? OptionalLong.of(sum) : OptionalLong.empty());
  }

  /** Unsigned {@code a × b} saturating at u64 max; {@code b ≥ 0}. */
  /** The unsigned sum, saturating at 2^64 - 1. */
  private static long saturatingAdd(long a, long b) {
    long r = a + b;
    return Long.compareUnsigned(r, a) < 0 ? -1L : r;
  }

  static long saturatingMultiply(long a, int b) {
    if (b == 0 || a == 0) {
      return 0;
    }
    if (Long.compareUnsigned(a, Long.divideUnsigned(-1L, b)) > 0) {
      return -1L;
    }
    return a * b;
  }
}
