package dev.kvrelay.engine.load;

import static dev.kvrelay.engine.load.LoadFixtures.config;
import static dev.kvrelay.engine.load.LoadFixtures.env;
import static dev.kvrelay.engine.load.LoadFixtures.kv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Invariants of {@link PoolLoadAggregator} against a simple exact model of the kv rules (declared ranks,
 * capacity 0 = unknown, per-publisher fencing, gap drop, capacity-change clears affected ranks, discard above
 * capacity, published_at > 0, freshness off).
 */
class PoolLoadAggregatorProperties {

  private static final long T = 1_000_000L;
  private static final long[] CAPACITIES = {0, 10, 100};

  /** Immutable: a declared rank in the model. */
  private record Rank(long worker, long rank) {}

  /** Immutable: a model kv value. */
  private record Value(long value, long publisher, long publishedAt) {}

  /** Not thread-safe: confined to one property example; the exact model. */
  private static final class Model {
    Map<Rank, Long> caps = new HashMap<>();
    final Map<Rank, Value> values = new HashMap<>();
    final Map<Long, Long> seqs = new HashMap<>();

    void refresh(Map<Long, RuntimeConfig> configs) {
      Map<Rank, Long> next = new HashMap<>();
      configs.forEach((w, c) -> {
        for (long r = c.dataParallelStartRank(); r <= c.lastRank(); r++) {
          next.put(new Rank(w, r), c.totalKvBlocks().orElse(0));
        }
      });
      caps.forEach((rank, cap) -> {
        if (!cap.equals(next.get(rank))) {
          values.remove(rank);
        }
      });
      caps = next;
    }

    void observe(long pub, long seq, long publishedAt, long worker, long rank, long value) {
      Long last = seqs.get(pub);
      if (last != null && seq <= last) {
        return;
      }
      if (last != null && seq > last + 1) {
        values.values().removeIf(v -> v.publisher() == pub);
      }
      seqs.put(pub, seq);
      Rank key = new Rank(worker, rank);
      Long cap = caps.get(key);
      if (cap == null) {
        return;
      }
      if (cap != 0 && value > cap) {
        values.remove(key);
      } else {
        values.put(key, new Value(value, pub, publishedAt));
      }
    }

    PoolLoadSnapshot snapshot() {
      long expected = caps.size();
      long capRanks = caps.values().stream().filter(c -> c != 0).count();
      long total = caps.values().stream().mapToLong(Long::longValue).sum();
      long observed = 0;
      long used = 0;
      long oldest = Long.MAX_VALUE;
      for (Map.Entry<Rank, Long> e : caps.entrySet()) {
        Value v = values.get(e.getKey());
        if (v != null && v.publishedAt() > 0) {
          observed++;
          used += v.value();
          oldest = Math.min(oldest, v.publishedAt());
        }
      }
      return new PoolLoadSnapshot(
          expected > 0 && observed == expected ? OptionalLong.of(used) : OptionalLong.empty(),
          expected > 0 && capRanks == expected ? OptionalLong.of(total) : OptionalLong.empty(),
          observed, expected, capRanks, SchedulerLoad.UNAVAILABLE, observed == 0 ? 0 : oldest);
    }
  }

  private static Map<Long, RuntimeConfig> configs(int bits) {
    Map<Long, RuntimeConfig> configs = new HashMap<>();
    for (int w = 0; w < 3; w++) {
      int b = (bits >>> (w * 8)) & 0xFF;
      if ((b & 1) == 0) {
        continue;
      }
      configs.put((long) w, config((b >>> 1) & 3, 1 + ((b >>> 3) & 1) + ((b >>> 4) & 1),
          CAPACITIES[Math.min(2, (b >>> 5) & 3)]));
    }
    return configs;
  }

  @Test
  void snapshotEqualsTheExactModel() {
    qt().withExamples(400).forAll(integers().all(), lists().of(integers().all()).ofSizeBetween(0, 80))
        .checkAssert((configBits, ops) -> {
          PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
          Model m = new Model();
          a.refresh(configs(configBits));
          m.refresh(configs(configBits));
          for (int op : ops) {
            int kind = op & 0xF;
            if (kind == 0) {
              Map<Long, RuntimeConfig> c = configs(op * 31 + configBits);
              a.refresh(c);
              m.refresh(c);
            } else if (kind == 1) {
              a.clearObservations();
              m.values.clear();
              m.seqs.clear();
            } else {
              long pub = (op >>> 4) & 1;
              long seq = (op >>> 5) & 7;
              long worker = (op >>> 8) & 3;
              long rank = (op >>> 10) & 7;
              long value = (op >>> 13) & 127;
              long publishedAt = ((op >>> 20) & 7) == 0 ? 0 : T + ((op >>> 20) & 7);
              a.observe(env(pub, seq, publishedAt), kv(worker, (int) rank, value), T);
              m.observe(pub, seq, publishedAt, worker, rank, value);
            }
            assertThat(a.snapshot(T)).isEqualTo(m.snapshot());
          }
        });
  }

  @Test
  void coverageInvariantsHold() {
    qt().withExamples(300).forAll(integers().all(), lists().of(integers().all()).ofSizeBetween(0, 60))
        .checkAssert((configBits, ops) -> {
          PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
          a.refresh(configs(configBits));
          for (int op : ops) {
            a.observe(env(op & 3, (op >>> 2) & 7, T), kv((op >>> 5) & 3, (op >>> 7) & 7, (op >>> 10) & 255), T);
            PoolLoadSnapshot s = a.snapshot(T);
            assertThat(s.kvObservedRanks()).isBetween(0L, s.kvExpectedRanks());
            assertThat(s.kvCapacityRanks()).isBetween(0L, s.kvExpectedRanks());
            assertThat(s.kvUsedBlocks().isPresent())
                .isEqualTo(s.kvExpectedRanks() > 0 && s.kvObservedRanks() == s.kvExpectedRanks());
            assertThat(s.totalKvBlocks().isPresent())
                .isEqualTo(s.kvExpectedRanks() > 0 && s.kvCapacityRanks() == s.kvExpectedRanks());
            if (s.kvUsedBlocks().isPresent() && s.totalKvBlocks().isPresent() && s.kvCapacityRanks() > 0) {
              assertThat(Long.compareUnsigned(s.kvUsedBlocks().getAsLong(), s.totalKvBlocks().getAsLong()))
                  .isLessThanOrEqualTo(0);
            }
          }
        });
  }

  @Test
  void rejectedReportsChangeNothing() {
    qt().withExamples(300).forAll(integers().all(), lists().of(integers().all()).ofSizeBetween(1, 40))
        .checkAssert((configBits, ops) -> {
          PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
          a.refresh(configs(configBits));
          for (int op : ops) {
            PoolLoadSnapshot before = a.snapshot(T);
            long gapsBefore = a.counters().gaps();
            boolean wrongTopic = (op & 1) == 1;
            EventEnvelope e = new EventEnvelope((op >>> 1) & 1, (op >>> 2) & 7, T,
                wrongTopic ? "kv-events" : "kv_metrics");
            ObserveOutcome o = a.observe(e, kv((op >>> 5) & 3, (op >>> 7) & 7, (op >>> 10) & 255), T);
            // an unknown-rank report still advances the sequence, so a gap it reveals drops that publisher's values
            boolean gap = a.counters().gaps() != gapsBefore;
            if (o == ObserveOutcome.STALE || o == ObserveOutcome.WRONG_TOPIC || (o == ObserveOutcome.UNKNOWN_RANK && !gap)) {
              assertThat(a.snapshot(T)).isEqualTo(before);
            }
            if (wrongTopic) {
              assertThat(o).isEqualTo(ObserveOutcome.WRONG_TOPIC);
            }
          }
          PoolStats.Load c = a.counters();
          assertThat(c.applied() + c.stale() + c.unknownRank() + c.discardedAboveCapacity() + c.wrongTopic()
              + c.ignoredAdvisory()).isEqualTo(ops.size());
        });
  }

  @Test
  void saturatingSumNeverWrapsAndEqualsExactClampedSum() {
    qt().withExamples(500).forAll(lists().of(integers().all()).ofSizeBetween(1, 8))
        .checkAssert(parts -> {
          Map<Long, RuntimeConfig> configs = Map.of(1L, config(0, parts.size(), OptionalLong.empty()));
          PoolLoadAggregator a = new PoolLoadAggregator(PoolLoadSettings.DEFAULT);
          a.refresh(configs);
          java.math.BigInteger exact = java.math.BigInteger.ZERO;
          for (int i = 0; i < parts.size(); i++) {
            long v = ((long) parts.get(i)) << 33 | (parts.get(i) & 0xFFFFL);
            exact = exact.add(new java.math.BigInteger(Long.toUnsignedString(v)));
            a.observe(env(1, i, T), kv(1, i, v), T);
          }
          java.math.BigInteger max = java.math.BigInteger.ONE.shiftLeft(64).subtract(java.math.BigInteger.ONE);
          String expected = exact.min(max).toString();
          assertThat(Long.toUnsignedString(a.snapshot(T).kvUsedBlocks().getAsLong())).isEqualTo(expected);
        });
  }
}
