package dev.kvrelay.engine.actor;

import static dev.kvrelay.engine.actor.ActorFixture.cleared;
import static dev.kvrelay.engine.actor.ActorFixture.config;
import static dev.kvrelay.engine.actor.ActorFixture.feed;
import static dev.kvrelay.engine.actor.ActorFixture.removed;
import static dev.kvrelay.engine.actor.ActorFixture.replay;
import static dev.kvrelay.engine.actor.ActorFixture.stored;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.engine.stats.PoolStats.ActorState;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Invariants of the pool actor against an independent exact model: a bare {@link CkfProducer} fed the
 * same events directly (drains never change the table), and a consumer replica built from the barrier
 * snapshot plus the published deltas.
 */
class PoolActorProperties {

  /** Builds the event of one generated op, or null for a cadence op (timer advance or flush). */
  private static RouterEvent event(int v) {
    int kind = v % 10;
    long worker = 1 + (v / 10) % 2;
    int rank = (v / 20) % 2;
    long key = (v / 40) % 40 + 1;
    return switch (kind) {
      case 0, 1, 2, 3 -> stored(worker, rank, 0, key, key * 31 + 7);
      case 4, 5 -> stored(worker, rank, key, key + 1000, key * 17 + 3);
      case 6, 7 -> removed(worker, rank, key, key + 1000);
      case 8 -> cleared(worker, rank);
      default -> null;
    };
  }

  private static void converge(CkfProducerConfig producerConfig, List<Integer> ops) throws Exception {
    ActorFixture f = new ActorFixture(producerConfig, PoolActorConfig.DEFAULTS);
    CkfProducer ref = CkfProducer.create(producerConfig);
    BarrierSnapshot barrier = f.subscribe(1);
    long events = 0;
    long submitted = 0;
    for (int v : ops) {
      RouterEvent e = event(v);
      if (e == null) {
        if ((v / 10) % 2 == 0) {
          f.scheduler.advance(PoolActorConfig.DEFAULT_PUBLICATION_DELAY_NANOS);
        } else {
          assertThat(f.actor.submit(PoolCommand.Flush.INSTANCE).accepted()).isTrue();
          if (++submitted % 64 == 0) {
            f.scheduler.runReady();
          }
        }
        continue;
      }
      assertThat(f.apply(e).accepted()).isTrue();
      feed(ref, e);
      events++;
      // Run the actor at least every 64 submissions: the mailbox holds 256 commands, and a full mailbox
      // rejects (tested elsewhere) instead of being part of this convergence property.
      submitted++;
      if (v % 7 == 0 || submitted % 64 == 0) {
        f.scheduler.runReady();
      }
    }
    f.scheduler.advance(PoolActorConfig.DEFAULT_PUBLICATION_DELAY_NANOS);
    PoolStats.Actor s = f.stats();
    assertThat(s.appliedEvents()).isEqualTo(events);
    assertThat(s.faults()).isEqualTo(f.faults.size());
    assertThat(s.producer().pendingEvents()).as("the timer drained the tail").isZero();
    assertThat(s.state()).isEqualTo(ActorState.RUNNING);
    assertThat(replay(barrier.snapshot(), f.published)).isEqualTo(ref.copyWords());
    assertThat(s.producer().mappings()).isEqualTo(ref.mappingCount());
  }

  @Test
  void eventsThroughTheActorConvergeToTheProducerWords() {
    qt().withExamples(60).forAll(lists().of(integers().between(0, 9_999)).ofSizeBetween(1, 300))
        .checkAssert(ops -> {
          try {
            converge(config(256, 16), ops);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
  }

  @Test
  void convergenceHoldsUnderCapacityPressure() {
    qt().withExamples(40).forAll(lists().of(integers().between(0, 9_999)).ofSizeBetween(1, 300))
        .checkAssert(ops -> {
          try {
            converge(config(8, 16), ops);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
  }

  @Test
  void pendingEventsNeverReachTheThresholdBetweenCommands() {
    qt().withExamples(50).forAll(lists().of(integers().between(0, 9_999)).ofSizeBetween(1, 200))
        .checkAssert(ops -> {
          ActorFixture f = new ActorFixture();
          for (int v : ops) {
            RouterEvent e = event(v);
            if (e != null) {
              f.apply(e);
              f.scheduler.runReady();
              assertThat(f.stats().producer().pendingEvents()).isLessThan(16);
            }
          }
        });
  }
}
