package dev.kvrelay.engine.load;

import static dev.kvrelay.engine.load.LoadFixtures.advisory;
import static dev.kvrelay.engine.load.LoadFixtures.config;
import static dev.kvrelay.engine.load.LoadFixtures.env;
import static dev.kvrelay.engine.load.LoadFixtures.kv;
import static dev.kvrelay.engine.load.LoadFixtures.sched;
import static dev.kvrelay.spi.eventplane.SchedulerLoadScope.LOCAL;
import static dev.kvrelay.spi.eventplane.SchedulerLoadScope.REPLICA_SYNCHRONIZED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolLoadAggregatorTest {

  private static final long T0 = 1_700_000_000_000L;

  private static PoolLoadAggregator pool(Map<Long, RuntimeConfig> configs) {
    PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
    assertThat(a.refresh(configs)).isEqualTo(RefreshOutcome.CHANGED);
    return a;
  }

  @Test
  void c8FirstLoadMessageKvUsed40Total100() throws Exception {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    assertThat(a.observe(env(1, 0, T0), kv(9, 0, 40), T0)).isEqualTo(ObserveOutcome.APPLIED);
    PoolLoadSnapshot s = a.snapshot(T0);
    assertThat(s.kvUsedBlocks()).hasValue(40);
    assertThat(s.totalKvBlocks()).hasValue(100);
    assertThat(List.of(s.kvObservedRanks(), s.kvCapacityRanks(), s.kvExpectedRanks())).containsExactly(1L, 1L, 1L);
    assertThat(s.authoritative()).isTrue();
    KvPoolLoadUpdate w = new LoadWindows(1000).initial(T0,
        List.of(new PoolLoadReport(LoadFixtures.producer(1, 3), s)));
    assertThat(w.pools()).hasSize(1);
    assertThat(w.pools().get(0).kvUsedBlocks()).isEqualTo(40);
    assertThat(w.pools().get(0).totalKvBlocks()).isEqualTo(100);
  }

  @Test
  void c35FullCoverageOnlyWhenAllRanksReportAndPartialNeverExposesASum() {
    PoolLoadAggregator a = pool(Map.of(9L, config(4, 2, 100), 10L, config(0, 1, 50)));
    a.observe(env(1, 0, T0), kv(9, 4, 10), T0);
    a.observe(env(1, 1, T0), kv(9, 5, 20), T0);
    PoolLoadSnapshot partial = a.snapshot(T0);
    assertThat(partial.kvUsedBlocks()).isEmpty();
    assertThat(partial.kvObservedRanks()).isEqualTo(2);
    assertThat(partial.kvExpectedRanks()).isEqualTo(3);
    assertThat(partial.totalKvBlocks()).hasValue(250);
    assertThat(partial.authoritative()).isFalse();
    a.observe(env(2, 0, T0), kv(10, 0, 5), T0);
    assertThat(a.snapshot(T0).kvUsedBlocks()).hasValue(35);
  }

  @Test
  void c35ZeroCapacityIsUnknown() throws Exception {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 2, 0)));
    a.observe(env(1, 0, T0), kv(9, 0, 1_000_000), T0);
    a.observe(env(1, 1, T0), kv(9, 1, 3), T0);
    PoolLoadSnapshot s = a.snapshot(T0);
    assertThat(s.kvCapacityRanks()).isZero();
    assertThat(s.totalKvBlocks()).isEmpty();
    assertThat(s.kvUsedBlocks()).hasValue(1_000_003);
    KvPoolLoadEntry e = new PoolLoadReport(LoadFixtures.producer(1, 1), s).toEntry();
    assertThat(e.totalKvBlocks()).isZero();
    assertThat(s.authoritative()).isFalse();
  }

  @Test
  void missingCapacityIsUnknownAndMixedCapacityHidesTotal() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, OptionalLong.empty()), 10L, config(0, 1, 30)));
    PoolLoadSnapshot s = a.snapshot(T0);
    assertThat(s.kvCapacityRanks()).isEqualTo(1);
    assertThat(s.kvExpectedRanks()).isEqualTo(2);
    assertThat(s.totalKvBlocks()).isEmpty();
  }

  @Test
  void c35UnknownRanksRejectedWithoutStateChange() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    PoolLoadSnapshot before = a.snapshot(T0);
    assertThat(a.observe(env(1, 0, T0), kv(9, 1, 5), T0)).isEqualTo(ObserveOutcome.UNKNOWN_RANK);
    assertThat(a.observe(env(1, 1, T0), kv(8, 0, 5), T0)).isEqualTo(ObserveOutcome.UNKNOWN_RANK);
    assertThat(a.snapshot(T0)).isEqualTo(before);
    assertThat(a.counters().unknownRank()).isEqualTo(2);
  }

  @Test
  void unknownRankEventsStillAdvanceThePublisherSequence() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    assertThat(a.observe(env(1, 5, T0), kv(9, 7, 5), T0)).isEqualTo(ObserveOutcome.UNKNOWN_RANK);
    assertThat(a.observe(env(1, 5, T0), kv(9, 0, 5), T0)).isEqualTo(ObserveOutcome.STALE);
    assertThat(a.observe(env(1, 6, T0), kv(9, 0, 5), T0)).isEqualTo(ObserveOutcome.APPLIED);
    assertThat(a.counters().gaps()).isZero();
  }

  /** wan-grpc.md §4.1 decision box: follow A's capacity rule (C35), not B's clear-everything. */
  @Test
  void decisionCapacityChangeClearsOnlyTheAffectedRanks() {
    Map<Long, RuntimeConfig> configs = new HashMap<>(Map.of(9L, config(0, 1, 100), 10L, config(0, 1, 100)));
    PoolLoadAggregator a = pool(configs);
    a.observe(env(1, 0, T0), kv(9, 0, 10), T0);
    a.observe(env(2, 0, T0), kv(10, 0, 20), T0);
    configs.put(10L, config(0, 1, 200));
    assertThat(a.refresh(configs)).isEqualTo(RefreshOutcome.CHANGED);
    PoolLoadSnapshot s = a.snapshot(T0);
    assertThat(s.kvObservedRanks()).isEqualTo(1);
    assertThat(s.kvUsedBlocks()).isEmpty();
    assertThat(s.totalKvBlocks()).hasValue(300);
    // publisher sequences survive: publisher 1 continues at 1, publisher 2 at 1
    assertThat(a.observe(env(1, 0, T0), kv(9, 0, 11), T0)).isEqualTo(ObserveOutcome.STALE);
    assertThat(a.observe(env(2, 1, T0), kv(10, 0, 21), T0)).isEqualTo(ObserveOutcome.APPLIED);
    assertThat(a.snapshot(T0).kvUsedBlocks()).hasValue(31);
    assertThat(a.refresh(configs)).isEqualTo(RefreshOutcome.UNCHANGED);
  }

  @Test
  void removedWorkerLosesItsRanksAndNewRanksStartUnobserved() {
    Map<Long, RuntimeConfig> configs = new HashMap<>(Map.of(9L, config(0, 1, 100)));
    PoolLoadAggregator a = pool(configs);
    a.observe(env(1, 0, T0), kv(9, 0, 10), T0);
    a.refresh(Map.of(10L, config(0, 1, 100)));
    a.refresh(configs);
    assertThat(a.snapshot(T0).kvObservedRanks()).isZero();
  }

  /** producer.md §6 / C35: an invalid refresh clears all state (ranks and observations). */
  @Test
  void decisionInvalidConfigClearsEverything() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 0, T0), kv(9, 0, 10), T0);
    Map<Long, RuntimeConfig> bad = new HashMap<>();
    bad.put(9L, config(0, 1, 100));
    bad.put(null, config(0, 1, 100));
    assertThat(a.refresh(bad)).isEqualTo(RefreshOutcome.INVALID_CONFIG);
    assertThat(a.snapshot(T0)).isEqualTo(PoolLoadSnapshot.EMPTY);
    assertThat(a.counters().invalidRefreshes()).isEqualTo(1);
    // the publisher sequence was cleared too: sequence 0 is accepted again
    a.refresh(Map.of(9L, config(0, 1, 100)));
    assertThat(a.observe(env(1, 0, T0), kv(9, 0, 10), T0)).isEqualTo(ObserveOutcome.APPLIED);
  }

  @Test
  void staleSequenceIsIgnoredWithoutStateChange() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 3, T0), kv(9, 0, 10), T0);
    PoolLoadSnapshot before = a.snapshot(T0);
    assertThat(a.observe(env(1, 3, T0), kv(9, 0, 99), T0)).isEqualTo(ObserveOutcome.STALE);
    assertThat(a.observe(env(1, 2, T0), kv(9, 0, 99), T0)).isEqualTo(ObserveOutcome.STALE);
    assertThat(a.snapshot(T0)).isEqualTo(before);
    assertThat(a.counters().stale()).isEqualTo(2);
  }

  @Test
  void sequencesCompareUnsigned() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, Long.MAX_VALUE, T0), kv(9, 0, 10), T0);
    assertThat(a.observe(env(1, Long.MIN_VALUE, T0), kv(9, 0, 11), T0)).isEqualTo(ObserveOutcome.APPLIED);
    assertThat(a.counters().gaps()).isZero();
    a.observe(env(1, -1L, T0), kv(9, 0, 12), T0);
    assertThat(a.observe(env(1, 0, T0), kv(9, 0, 13), T0)).isEqualTo(ObserveOutcome.STALE);
  }

  @Test
  void gapDropsOnlyThatPublishersValuesThenAppliesTheReport() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 3, 100)));
    a.observe(env(1, 0, T0), kv(9, 0, 10), T0);
    a.observe(env(1, 1, T0), kv(9, 1, 20), T0);
    a.observe(env(2, 0, T0), kv(9, 2, 30), T0);
    assertThat(a.observe(env(1, 5, T0), kv(9, 1, 21), T0)).isEqualTo(ObserveOutcome.APPLIED);
    PoolLoadSnapshot s = a.snapshot(T0);
    assertThat(s.kvObservedRanks()).isEqualTo(2); // rank 0 dropped; ranks 1 (new) and 2 (publisher 2) stay
    assertThat(a.counters().gaps()).isEqualTo(1);
    a.observe(env(1, 6, T0), kv(9, 0, 1), T0);
    assertThat(a.snapshot(T0).kvUsedBlocks()).hasValue(52);
  }

  @Test
  void kvUsedAboveKnownCapacityIsDiscarded() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 0, T0), kv(9, 0, 100), T0);
    assertThat(a.snapshot(T0).kvUsedBlocks()).hasValue(100);
    assertThat(a.observe(env(1, 1, T0), kv(9, 0, 101), T0)).isEqualTo(ObserveOutcome.DISCARDED_ABOVE_CAPACITY);
    assertThat(a.snapshot(T0).kvObservedRanks()).isZero();
    assertThat(a.counters().discardedAboveCapacity()).isEqualTo(1);
    // unsigned: u64 max is above any capacity
    assertThat(a.observe(env(1, 2, T0), kv(9, 0, -1L), T0)).isEqualTo(ObserveOutcome.DISCARDED_ABOVE_CAPACITY);
  }

  /** wan-grpc.md §4.1 decision box: kv freshness configurable, default off; when enabled 5 s. */
  @Test
  void decisionKvFreshnessDefaultOffAndFiveSecondsWhenEnabled() {
    PoolLoadAggregator off = pool(Map.of(9L, config(0, 1, 100)));
    off.observe(env(1, 0, T0), kv(9, 0, 10), T0);
    assertThat(off.snapshot(T0 + 3_600_000).kvUsedBlocks()).hasValue(10);

    PoolLoadAggregator on = new PoolLoadAggregator(new PoolLoadSettings(true, 3000));
    on.refresh(Map.of(9L, config(0, 1, 100)));
    on.observe(env(1, 0, T0), kv(9, 0, 10), T0);
    assertThat(on.snapshot(T0 + 5_000).kvUsedBlocks()).hasValue(10);
    assertThat(on.snapshot(T0 + 5_001).kvUsedBlocks()).isEmpty();
    assertThat(on.snapshot(T0 + 5_001).kvObservedRanks()).isZero();
  }

  /** Decision (ours): published_at > 0 is required for a kv value to count even with freshness off. */
  @Test
  void decisionPublishedAtZeroNeverCounts() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    assertThat(a.observe(env(1, 0, 0), kv(9, 0, 10), T0)).isEqualTo(ObserveOutcome.APPLIED);
    assertThat(a.snapshot(T0).kvObservedRanks()).isZero();
  }

  @Test
  void sourceObservedMsIsTheOldestContributingPublishedAt() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 3, 100)));
    assertThat(a.snapshot(T0).sourceObservedMs()).isZero();
    a.observe(env(1, 0, T0 + 20), kv(9, 0, 1), T0);
    a.observe(env(1, 1, T0 + 10), kv(9, 1, 1), T0);
    a.observe(env(1, 2, T0 + 30), kv(9, 2, 1), T0);
    assertThat(a.snapshot(T0).sourceObservedMs()).isEqualTo(T0 + 10);
  }

  @Test
  void streamFailureClearsObservationsAndSequencesButKeepsRanks() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 4, T0), kv(9, 0, 10), T0);
    a.clearObservations();
    PoolLoadSnapshot s = a.snapshot(T0);
    assertThat(s.kvObservedRanks()).isZero();
    assertThat(s.kvExpectedRanks()).isEqualTo(1);
    assertThat(a.observe(env(1, 0, T0), kv(9, 0, 10), T0)).isEqualTo(ObserveOutcome.APPLIED);
    assertThat(a.counters().streamClears()).isEqualTo(1);
  }

  @Test
  void c34SaturatedSumsStayAtU64Max() throws Exception {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 2, -2L)));
    a.observe(env(1, 0, T0), kv(9, 0, -3L), T0);
    a.observe(env(1, 1, T0), kv(9, 1, 5), T0);
    PoolLoadSnapshot s = a.snapshot(T0);
    assertThat(s.kvUsedBlocks()).hasValue(-1L);
    assertThat(s.totalKvBlocks()).hasValue(-1L);
    KvPoolLoadEntry e = new PoolLoadReport(LoadFixtures.producer(1, 1), s).toEntry();
    assertThat(Long.toUnsignedString(e.kvUsedBlocks())).isEqualTo("18446744073709551615");
    assertThat(Long.toUnsignedString(e.totalKvBlocks())).isEqualTo("18446744073709551615");
  }

  @Test
  void advisoryReportsAreIgnoredButAdvanceTheSequence() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    PoolLoadSnapshot before = a.snapshot(T0);
    assertThat(a.observe(env(1, 0, T0), advisory(9, 0, 4), T0)).isEqualTo(ObserveOutcome.IGNORED_ADVISORY);
    assertThat(a.snapshot(T0)).isEqualTo(before);
    assertThat(a.observe(env(1, 0, T0), kv(9, 0, 4), T0)).isEqualTo(ObserveOutcome.STALE);
  }

  @Test
  void wrongTopicIsRejectedWithoutStateChange() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 0, T0), kv(9, 0, 10), T0);
    PoolLoadSnapshot before = a.snapshot(T0);
    assertThat(a.observe(new EventEnvelope(1, 1, T0, "kv-events"), kv(9, 0, 50), T0))
        .isEqualTo(ObserveOutcome.WRONG_TOPIC);
    assertThat(a.snapshot(T0)).isEqualTo(before);
    assertThat(a.observe(env(1, 1, T0), kv(9, 0, 50), T0)).isEqualTo(ObserveOutcome.APPLIED);
  }

  /** wan-grpc.md §4.2 decision box: follow (A) (C36) — max within a replica group, Σ across groups. */
  @Test
  void decisionSchedulerMaxWithinReplicaGroupSumAcrossGroupsC36() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 2, 100)));
    // replica group: publishers 1 and 2; standalone: publisher 3
    a.observe(env(1, 0, T0), sched(9, 0, REPLICA_SYNCHRONIZED, 10, 100), T0);
    a.observe(env(1, 1, T0), sched(9, 1, REPLICA_SYNCHRONIZED, 1, 7), T0);
    a.observe(env(2, 0, T0 - 5), sched(9, 0, REPLICA_SYNCHRONIZED, 4, 300), T0);
    a.observe(env(2, 1, T0), sched(9, 1, REPLICA_SYNCHRONIZED, 6, 2), T0);
    a.observe(env(3, 0, T0), sched(9, 0, LOCAL, 1000, 1), T0);
    a.observe(env(3, 1, T0), sched(9, 1, LOCAL, 2000, 2), T0);
    SchedulerLoad s = a.snapshot(T0).scheduler();
    assertThat(s.status()).isEqualTo(DataStatus.COMPLETE);
    // decode: max(10,4) + max(1,6) + 1000 + 2000 = 3016; prefill: max(100,300) + max(7,2) + 1 + 2 = 310
    assertThat(s.activeDecodeBlocks()).hasValue(3016);
    assertThat(s.activePrefillTokens()).hasValue(310);
    assertThat(s.sourceObservedMs()).isEqualTo(T0 - 5);
  }

  @Test
  void c36StandaloneCountsOnlyItsLatestView() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(3, 0, T0), sched(9, 0, LOCAL, 50, 5), T0);
    a.observe(env(3, 1, T0), sched(9, 0, LOCAL, 8, 9), T0);
    assertThat(a.snapshot(T0).scheduler().activeDecodeBlocks()).hasValue(8);
  }

  @Test
  void c36PartialUntilEverySchedulerCoversEveryRank() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 2, 100)));
    assertThat(a.snapshot(T0).scheduler()).isEqualTo(SchedulerLoad.UNAVAILABLE);
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 1, 1), T0);
    a.observe(env(1, 1, T0), sched(9, 1, LOCAL, 1, 1), T0);
    a.observe(env(2, 0, T0), sched(9, 0, LOCAL, 1, 1), T0);
    SchedulerLoad s = a.snapshot(T0).scheduler();
    assertThat(s.status()).isEqualTo(DataStatus.DEGRADED);
    assertThat(s.activeDecodeBlocks()).isEmpty();
    assertThat(s.activePrefillTokens()).isEmpty();
    a.observe(env(2, 1, T0), sched(9, 1, LOCAL, 1, 1), T0);
    assertThat(a.snapshot(T0).scheduler().status()).isEqualTo(DataStatus.COMPLETE);
  }

  @Test
  void c36DuplicateSequencesDropped() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 1, 1), T0);
    assertThat(a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 99, 99), T0)).isEqualTo(ObserveOutcome.STALE);
    assertThat(a.snapshot(T0).scheduler().activeDecodeBlocks()).hasValue(1);
  }

  @Test
  void c36ExpiryMakesAViewMissing() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 1, 1), T0);
    long fresh = PoolLoadSettings.DEFAULT.schedulerFreshnessMs();
    assertThat(a.snapshot(T0 + fresh).scheduler().status()).isEqualTo(DataStatus.COMPLETE);
    assertThat(a.snapshot(T0 + fresh + 1).scheduler()).isEqualTo(SchedulerLoad.UNAVAILABLE);
  }

  @Test
  void c19PoolWithoutSchedulerReportsIsUnavailableWithUnsetGauges() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 0, T0), kv(9, 0, 10), T0);
    SchedulerLoad s = a.snapshot(T0).scheduler();
    assertThat(s.status()).isEqualTo(DataStatus.UNAVAILABLE);
    assertThat(s.activeDecodeBlocks()).isEmpty();
    assertThat(s.sourceObservedMs()).isZero();
  }

  @Test
  void scopeWithMissingValuesRemovesThatPublishersEntry() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 1, 1), T0);
    a.observe(env(2, 0, T0), sched(9, 0, LOCAL, 2, 2), T0);
    var partial = new dev.kvrelay.spi.eventplane.ActiveLoad(9, 0, OptionalLong.of(5), OptionalLong.empty(), LOCAL,
        OptionalLong.empty());
    assertThat(a.observe(env(2, 1, T0), partial, T0)).isEqualTo(ObserveOutcome.APPLIED);
    assertThat(a.snapshot(T0).scheduler().activeDecodeBlocks()).hasValue(1);
  }

  @Test
  void gapAlsoDropsThePublishersSchedulerViews() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 2, 100)));
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 1, 1), T0);
    a.observe(env(1, 1, T0), sched(9, 1, LOCAL, 1, 1), T0);
    a.observe(env(1, 9, T0), sched(9, 1, LOCAL, 1, 1), T0);
    assertThat(a.snapshot(T0).scheduler().status()).isEqualTo(DataStatus.DEGRADED);
  }

  /**
   * C36 "failed discovery ⇒ partial" (wan-grpc.md §4.2: COMPLETE only if discovery succeeded): with full fresh
   * coverage a failed listing of the scheduler set makes the view DEGRADED without gauges, never COMPLETE; without
   * fresh views it is UNAVAILABLE; a later successful listing restores COMPLETE. Each failure is counted.
   */
  @Test
  void c36_failedSchedulerDiscoveryMarksTheSchedulerViewPartialNeverComplete() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 2, 100)));
    a.schedulersListed(Set.of(1L, 2L));
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 3, 30), T0);
    a.observe(env(1, 1, T0), sched(9, 1, LOCAL, 4, 40), T0);
    a.observe(env(2, 0, T0), sched(9, 0, LOCAL, 5, 50), T0);
    a.observe(env(2, 1, T0), sched(9, 1, LOCAL, 6, 60), T0);
    assertThat(a.snapshot(T0).scheduler().status()).isEqualTo(DataStatus.COMPLETE);

    a.schedulerListingFailed();
    SchedulerLoad failed = a.snapshot(T0).scheduler();
    assertThat(failed.status()).as("failed discovery ⇒ partial").isEqualTo(DataStatus.DEGRADED);
    assertThat(failed.activeDecodeBlocks()).as("a partial view never exposes gauges").isEmpty();
    assertThat(failed.activePrefillTokens()).isEmpty();
    assertThat(failed.sourceObservedMs()).isEqualTo(T0);
    assertThat(a.counters().schedulerListingFailures()).isEqualTo(1);

    a.observe(env(1, 2, T0), sched(9, 0, LOCAL, 7, 70), T0);
    assertThat(a.snapshot(T0).scheduler().status()).as("fresh reports do not override the failed listing")
        .isEqualTo(DataStatus.DEGRADED);
    long fresh = PoolLoadSettings.DEFAULT.schedulerFreshnessMs();
    assertThat(a.snapshot(T0 + fresh + 1).scheduler()).as("no fresh view ⇒ unavailable")
        .isEqualTo(SchedulerLoad.UNAVAILABLE);

    a.schedulersListed(Set.of(1L, 2L));
    SchedulerLoad recovered = a.snapshot(T0).scheduler();
    assertThat(recovered.status()).isEqualTo(DataStatus.COMPLETE);
    assertThat(recovered.activeDecodeBlocks()).hasValue(7 + 4 + 5 + 6);
    assertThat(recovered.activePrefillTokens()).hasValue(70 + 40 + 50 + 60);
    assertThat(a.counters().schedulerListingFailures()).isEqualTo(1);
  }

  /**
   * C36 expected schedulers = discovered ∪ fresh publishers (wan-grpc.md §4.2): a listed scheduler with no fresh view
   * keeps the pool partial even when every publishing scheduler covers every rank.
   */
  @Test
  void c36_aDiscoveredSchedulerWithoutAFreshViewKeepsTheSchedulerViewPartial() {
    PoolLoadAggregator a = pool(Map.of(9L, config(0, 1, 100)));
    a.schedulersListed(Set.of(1L, 3L));
    a.observe(env(1, 0, T0), sched(9, 0, LOCAL, 2, 20), T0);
    a.observe(env(2, 0, T0), sched(9, 0, LOCAL, 5, 50), T0);
    SchedulerLoad s = a.snapshot(T0).scheduler();
    assertThat(s.status()).isEqualTo(DataStatus.DEGRADED);
    assertThat(s.activeDecodeBlocks()).isEmpty();
    a.observe(env(3, 0, T0), sched(9, 0, LOCAL, 1, 10), T0);
    assertThat(a.snapshot(T0).scheduler().activeDecodeBlocks()).hasValue(2 + 5 + 1);
    a.schedulersListed(Set.of(1L));
    assertThat(a.snapshot(T0).scheduler().status()).as("fresh publishers count even when not listed")
        .isEqualTo(DataStatus.COMPLETE);
  }
}
