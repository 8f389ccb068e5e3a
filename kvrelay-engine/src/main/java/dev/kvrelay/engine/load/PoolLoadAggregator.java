package dev.kvrelay.engine.load;

import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.SchedulerLoadScope;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the relay's control thread (the host that owns the pool). Aggregates the {@code kv_metrics} load of one pool
 * (producer.md §6 with the wan-grpc.md §4.1 and §4.2 decision boxes); pure and deterministic, time is
 * passed in as {@code nowMs} (the relay's receive clock, Unix ms).
 *
 * <p>Rules followed: declared ranks {@code (worker_id, dp_rank)} from runtime configs, capacity 0 =
 * unknown; a capacity change clears observations only of the affected ranks (variant A, C35); per-publisher
 * envelope sequence fencing (stale ignored, a gap drops that publisher's values, unknown-rank reports still
 * advance the sequence); {@code kv_used_blocks} above known capacity discarded; kv freshness optional
 * (default off, 5 s); scheduler views aggregated per decision (A) of §4.2; sums saturate at u64 max.
 *
 * <p>Scheduler coverage (§4.2): the expected schedulers are the ones the latest discovery listing found ∪ those
 * with a fresh view. The scheduler view is COMPLETE only if that listing succeeded and every expected scheduler has
 * a fresh view of every declared rank; after a failed listing it is at best DEGRADED (partial, no gauges). Until
 * the first listing outcome ({@link #schedulersListed} / {@link #schedulerListingFailed}) the expected set is the
 * fresh publishers alone.
 */
public final class PoolLoadAggregator {

  private static final long U64_MAX = -1L;

  /** Immutable: a kv value of one rank and the publisher that sent it. */
  private record KvValue(long value, long publisherId, long receivedAtMs, long publishedAtMs) {}

  /** Immutable: a scheduler view of one rank by one publisher. */
  private record SchedulerView(
      SchedulerLoadScope scope, long decode, long prefill, long receivedAtMs, long publishedAtMs) {}

  /** Immutable: a (rank, publisher) key. */
  private record SchedulerKey(RankKey rank, long publisherId) {}

  private final PoolLoadSettings settings;
  /** Declared ranks → capacity (0 = unknown). */
  private Map<RankKey, Long> capacities = new HashMap<>();
  private final Map<RankKey, KvValue> kvValues = new HashMap<>();
  private final Map<SchedulerKey, SchedulerView> schedulerViews = new HashMap<>();
  private final Map<Long, Long> publisherSequences = new HashMap<>();
  /** Publisher ids of the latest successful scheduler listing; null before the first listing outcome. */
  private @Nullable Set<Long> listedSchedulers;
  /** True while the latest scheduler listing failed. */
  private boolean schedulerListingFailed;

  private long applied;
  private long ignoredAdvisory;
  private long stale;
  private long gaps;
  private long unknownRank;
  private long discardedAboveCapacity;
  private long wrongTopic;
  private long invalidRefreshes;
  private long streamClears;
  private long schedulerListingFailures;

  /** An aggregator with no declared ranks. */
  public PoolLoadAggregator(PoolLoadSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Replaces the declared ranks with those of {@code runtimeConfigs} (worker id, unsigned, → config).
   * Ranks whose capacity changed or that disappeared lose their kv value and scheduler views; other ranks
   * keep theirs; publisher sequences are kept. A map with a missing key or config is invalid and clears
   * every rank and observation (producer.md §6: "a refresh error clears all state").
   */
  public RefreshOutcome refresh(Map<Long, RuntimeConfig> runtimeConfigs) {
    Map<RankKey, Long> next = declaredRanks(runtimeConfigs);
    if (next == null) {
      invalidRefreshes++;
      capacities = new HashMap<>();
      clearSourceState();
      return RefreshOutcome.INVALID_CONFIG;
    }
    if (next.equals(capacities)) {
      return RefreshOutcome.UNCHANGED;
    }
    for (Map.Entry<RankKey, Long> old : capacities.entrySet()) {
      Long now = next.get(old.getKey());
      if (!old.getValue().equals(now)) {
        clearRank(old.getKey());
      }
    }
    capacities = next;
    return RefreshOutcome.CHANGED;
  }

  private static @Nullable Map<RankKey, Long> declaredRanks(Map<Long, RuntimeConfig> runtimeConfigs) {
    Map<RankKey, Long> ranks = new HashMap<>();
    for (Map.Entry<Long, RuntimeConfig> e : runtimeConfigs.entrySet()) {
      Long workerId = e.getKey();
      RuntimeConfig config = e.getValue();
      if (workerId == null || config == null) {
        return null;
      }
      long capacity = config.totalKvBlocks().orElse(0);
      for (long rank = config.dataParallelStartRank(); rank <= config.lastRank(); rank++) {
        ranks.put(new RankKey(workerId, rank), capacity);
      }
    }
    return ranks;
  }

  /**
   * Applies one {@code kv_metrics} report received at {@code nowMs}. Rejected outcomes ({@link
   * ObserveOutcome#STALE}, {@link ObserveOutcome#WRONG_TOPIC}) change nothing but a counter.
   */
  public ObserveOutcome observe(EventEnvelope envelope, ActiveLoad load, long nowMs) {
    if (!EventTopics.KV_METRICS.equals(envelope.topic())) {
      wrongTopic++;
      return ObserveOutcome.WRONG_TOPIC;
    }
    long publisherId = envelope.publisherId();
    long sequence = envelope.sequence();
    Long last = publisherSequences.get(publisherId);
    if (last != null) {
      if (Long.compareUnsigned(sequence, last) <= 0) {
        stale++;
        return ObserveOutcome.STALE;
      }
      if (Long.compareUnsigned(sequence, last + 1) > 0) {
        gaps++;
        dropPublisher(publisherId);
      }
    }
    publisherSequences.put(publisherId, sequence);

    RankKey rank = new RankKey(load.workerId(), Integer.toUnsignedLong(load.dpRank()));
    Long capacity = capacities.get(rank);
    if (capacity == null) {
      unknownRank++;
      return ObserveOutcome.UNKNOWN_RANK;
    }
    boolean touched = false;
    boolean discarded = false;
    OptionalLong kvUsed = load.kvUsedBlocks();
    if (kvUsed.isPresent()) {
      long value = kvUsed.getAsLong();
      if (capacity != 0 && Long.compareUnsigned(value, capacity) > 0) {
        kvValues.remove(rank);
        discarded = true;
      } else {
        kvValues.put(rank, new KvValue(value, publisherId, nowMs, envelope.publishedAtMs()));
        touched = true;
      }
    }
    SchedulerLoadScope scope = load.schedulerLoadScope();
    if (scope != null) {
      SchedulerKey key = new SchedulerKey(rank, publisherId);
      if (load.activeDecodeBlocks().isPresent() && load.activePrefillTokens().isPresent()) {
        schedulerViews.put(key, new SchedulerView(scope, load.activeDecodeBlocks().getAsLong(),
            load.activePrefillTokens().getAsLong(), nowMs, envelope.publishedAtMs()));
      } else {
        schedulerViews.remove(key);
      }
      touched = true;
    }
    if (discarded) {
      discardedAboveCapacity++;
      return ObserveOutcome.DISCARDED_ABOVE_CAPACITY;
    }
    if (!touched) {
      ignoredAdvisory++;
      return ObserveOutcome.IGNORED_ADVISORY;
    }
    applied++;
    return ObserveOutcome.APPLIED;
  }

  /**
   * The latest discovery listing of the pool's scheduler set succeeded and found the schedulers publishing as
   * {@code publisherIds} (unsigned publisher ids of router instances on the scheduler-load subject). Each of them
   * is expected to cover every declared rank before the scheduler view is COMPLETE.
   */
  public void schedulersListed(Set<Long> publisherIds) {
    listedSchedulers = Set.copyOf(publisherIds);
    schedulerListingFailed = false;
  }

  /**
   * The latest discovery listing of the pool's scheduler set failed (error or timeout): the set of expected
   * schedulers is unknown, so the scheduler view is never COMPLETE (DEGRADED while any view is fresh, else
   * UNAVAILABLE) until a listing succeeds again. Views already held are kept. Counted.
   */
  public void schedulerListingFailed() {
    schedulerListingFailures++;
    schedulerListingFailed = true;
  }

  /** Stream failure or close: clears every observation and publisher sequence; declared ranks stay. */
  public void clearObservations() {
    streamClears++;
    clearSourceState();
  }

  private void clearSourceState() {
    kvValues.clear();
    schedulerViews.clear();
    publisherSequences.clear();
  }

  private void clearRank(RankKey rank) {
    kvValues.remove(rank);
    schedulerViews.keySet().removeIf(k -> k.rank().equals(rank));
  }

  private void dropPublisher(long publisherId) {
    kvValues.values().removeIf(v -> v.publisherId() == publisherId);
    schedulerViews.keySet().removeIf(k -> k.publisherId() == publisherId);
  }

  /** The counters so far. */
  public PoolStats.Load counters() {
    return new PoolStats.Load(applied, ignoredAdvisory, stale, gaps, unknownRank, discardedAboveCapacity,
        wrongTopic, invalidRefreshes, streamClears, schedulerListingFailures);
  }

  /** The load at {@code nowMs}; no state change. */
  public PoolLoadSnapshot snapshot(long nowMs) {
    long expected = capacities.size();
    long capacityRanks = 0;
    long observed = 0;
    long total = 0;
    long used = 0;
    long oldest = 0;
    for (Map.Entry<RankKey, Long> e : capacities.entrySet()) {
      long capacity = e.getValue();
      if (capacity != 0) {
        capacityRanks++;
        total = saturatingAdd(total, capacity);
      }
      KvValue v = kvValues.get(e.getKey());
      if (v == null || !kvCounts(v, capacity, nowMs)) {
        continue;
      }
      observed++;
      used = saturatingAdd(used, v.value());
      oldest = oldestNonZero(oldest, v.publishedAtMs());
    }
    OptionalLong kvUsed = expected > 0 && observed == expected ? OptionalLong.of(used) : OptionalLong.empty();
    OptionalLong totalKv =
        expected > 0 && capacityRanks == expected ? OptionalLong.of(total) : OptionalLong.empty();
    return new PoolLoadSnapshot(kvUsed, totalKv, observed, expected, capacityRanks, schedulerLoad(nowMs), oldest);
  }

  private boolean kvCounts(KvValue v, long capacity, long nowMs) {
    if (v.publishedAtMs() == 0) {
      return false;
    }
    if (capacity != 0 && Long.compareUnsigned(v.value(), capacity) > 0) {
      return false;
    }
    return !settings.kvFreshnessEnabled() || age(v.receivedAtMs(), nowMs) <= PoolLoadSettings.KV_FRESHNESS_MS;
  }

  /** Elapsed ms, saturating at 0 when the clock went backwards. */
  private static long age(long receivedAtMs, long nowMs) {
    return nowMs <= receivedAtMs ? 0 : nowMs - receivedAtMs;
  }

  private SchedulerLoad schedulerLoad(long nowMs) {
    Map<RankKey, Long> groupDecode = new HashMap<>();
    Map<RankKey, Long> groupPrefill = new HashMap<>();
    Map<Long, Set<RankKey>> coverage = new HashMap<>();
    long decode = 0;
    long prefill = 0;
    long oldest = 0;
    for (Map.Entry<SchedulerKey, SchedulerView> e : schedulerViews.entrySet()) {
      SchedulerView v = e.getValue();
      if (age(v.receivedAtMs(), nowMs) > settings.schedulerFreshnessMs()) {
        continue;
      }
      RankKey rank = e.getKey().rank();
      coverage.computeIfAbsent(e.getKey().publisherId(), p -> new HashSet<>()).add(rank);
      oldest = oldestNonZero(oldest, v.publishedAtMs());
      if (v.scope() == SchedulerLoadScope.REPLICA_SYNCHRONIZED) {
        groupDecode.merge(rank, v.decode(), PoolLoadAggregator::unsignedMax);
        groupPrefill.merge(rank, v.prefill(), PoolLoadAggregator::unsignedMax);
      } else {
        decode = saturatingAdd(decode, v.decode());
        prefill = saturatingAdd(prefill, v.prefill());
      }
    }
    if (coverage.isEmpty()) {
      return SchedulerLoad.UNAVAILABLE;
    }
    Set<Long> expected = new HashSet<>(coverage.keySet());
    if (listedSchedulers != null) {
      expected.addAll(listedSchedulers);
    }
    boolean complete = !schedulerListingFailed && !capacities.isEmpty();
    for (Long publisher : expected) {
      Set<RankKey> ranks = coverage.get(publisher);
      complete &= ranks != null && ranks.size() == capacities.size();
    }
    if (!complete) {
      return new SchedulerLoad(DataStatus.DEGRADED, OptionalLong.empty(), OptionalLong.empty(), oldest);
    }
    for (long d : groupDecode.values()) {
      decode = saturatingAdd(decode, d);
    }
    for (long p : groupPrefill.values()) {
      prefill = saturatingAdd(prefill, p);
    }
    return new SchedulerLoad(DataStatus.COMPLETE, OptionalLong.of(prefill), OptionalLong.of(decode), oldest);
  }

  static long saturatingAdd(long a, long b) {
    long r = a + b;
    return Long.compareUnsigned(r, a) < 0 ? U64_MAX : r;
  }

  /** The unsigned minimum of two timestamps where 0 means "none". */
  private static long oldestNonZero(long oldest, long candidate) {
    if (oldest == 0) {
      return candidate;
    }
    if (candidate == 0) {
      return oldest;
    }
    return Long.compareUnsigned(oldest, candidate) <= 0 ? oldest : candidate;
  }

  private static long unsignedMax(long a, long b) {
    return Long.compareUnsigned(a, b) >= 0 ? a : b;
  }
}
