package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.spi.eventplane.PublisherSequences.OnRegression;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The per-publisher envelope sequence check and the fault values it reports, under both regression rules
 * (the ZMQ and NATS planes' observable behaviour is in their own suites).
 */
class PublisherSequencesTest {

  @Test
  void firstMessageSetsTheBaselineAndSkipsAheadAreGaps() {
    PublisherSequences s = new PublisherSequences(8);
    assertThat(s.observe(7, 41)).as("joining mid-life is no gap").isNull();
    assertThat(s.observe(7, 42)).isNull();
    EventPlaneFault.SequenceGap gap = s.observe(7, 45);
    assertThat(gap).isEqualTo(new EventPlaneFault.SequenceGap(7, 43, 45));
    assertThat(gap.missing()).isEqualTo(2);
    assertThat(gap.describe()).isEqualTo("publisher 7 sequence gap: expected 43, received 45 (2 missing)");
    assertThat(s.observe(7, 44)).as("late message: a regression, not a gap").isNull();
    assertThat(s.observe(7, 45)).as("repeat").isNull();
    assertThat(s.observe(7, 46)).isNull();
    assertThat(s.gaps()).isEqualTo(1);
    assertThat(s.missing()).isEqualTo(2);
    assertThat(s.regressions()).isEqualTo(2);
  }

  @Test
  void sequencesAreUnsigned() {
    PublisherSequences s = new PublisherSequences(8);
    long id = Long.parseUnsignedLong("18446744073709551615");
    assertThat(s.observe(id, Long.MAX_VALUE)).isNull();
    EventPlaneFault.SequenceGap gap = s.observe(id, Long.MIN_VALUE + 3);
    assertThat(gap.expectedSequence()).isEqualTo(Long.MIN_VALUE);
    assertThat(gap.missing()).isEqualTo(3);
    assertThat(gap.describe()).startsWith("publisher 18446744073709551615 sequence gap: expected 9223372036854775808");
    assertThat(s.observe(id, 5)).as("5 is below 2^63 + 3 unsigned").isNull();
    assertThat(s.regressions()).isEqualTo(1);
  }

  @Test
  void theLeastRecentlySeenPublisherIsForgottenAndCounted() {
    PublisherSequences s = new PublisherSequences(2);
    s.observe(1, 0);
    s.observe(2, 0);
    s.observe(1, 1);
    s.observe(3, 0); // forgets 2
    assertThat(s.size()).isEqualTo(2);
    assertThat(s.evictions()).isEqualTo(1);
    assertThat(s.observe(2, 9)).as("a forgotten publisher starts a new baseline").isNull();
    assertThat(s.observe(1, 5)).as("1 was evicted by 2's return").isNull();
    assertThat(s.evictions()).isEqualTo(3);
  }

  @Test
  void faultValuesRefuseNonsense() {
    assertThatThrownBy(() -> new PublisherSequences(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EventPlaneFault.SequenceGap(1, 5, 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EventPlaneFault.SequenceGap(1, 5, 4)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EventPlaneFault.MessagesDropped(0, "x")).isInstanceOf(IllegalArgumentException.class);
    assertThat(new EventPlaneFault.MessagesDropped(3, "pending limits 10 messages").describe())
        .isEqualTo("3 messages dropped: pending limits 10 messages");
    assertThat(new EventPlaneFault.Disconnected("nats://127.0.0.1:1").describe())
        .isEqualTo("disconnected: nats://127.0.0.1:1");
  }

  /** Dropping any messages of interleaved in-order publishers: the gaps report exactly the dropped count. */
  @Test
  void gapsAccountForExactlyTheDroppedMessages() {
    qt().forAll(lists().of(integers().between(0, 9)).ofSizeBetween(1, 400))
        .checkAssert(choices -> {
          PublisherSequences s = new PublisherSequences(16);
          Map<Long, Long> next = new HashMap<>();
          Map<Long, Long> lastDelivered = new HashMap<>();
          long droppedBetween = 0;
          for (int c : choices) {
            long publisher = c % 3;
            boolean drop = c >= 6;
            long seq = next.merge(publisher, 1L, Long::sum) - 1;
            if (drop) {
              if (lastDelivered.containsKey(publisher)) {
                droppedBetween++; // only drops after a baseline can be seen; trailing ones are subtracted below
              }
              continue;
            }
            lastDelivered.put(publisher, seq);
            s.observe(publisher, seq);
          }
          // Drops after a publisher's last delivered message are invisible: subtract them.
          long trailing = 0;
          for (Map.Entry<Long, Long> e : lastDelivered.entrySet()) {
            trailing += next.get(e.getKey()) - 1 - e.getValue();
          }
          assertThat(s.missing()).isEqualTo(droppedBetween - trailing);
          assertThat(s.regressions()).isZero();
        });
  }

  @Test
  void checkReportsANewPublisherThenGapsAndUnderRestartOneRegressionPerRestart() {
    PublisherSequences c = new PublisherSequences(8, OnRegression.REPORT_AND_RESTART);
    assertThat(c.check(1, 0)).isEqualTo(new EventPlaneFault.NewPublisher(1, 0));
    assertThat(c.check(1, 1)).isNull();
    assertThat(c.check(2, 17)).isEqualTo(new EventPlaneFault.NewPublisher(2, 17));
    assertThat(c.check(1, 4)).isEqualTo(new EventPlaneFault.SequenceGap(1, 2, 4));
    assertThat(c.check(1, 5)).isNull();
    assertThat(c.check(1, 0)).isEqualTo(new EventPlaneFault.SequenceRegression(1, 6, 0));
    assertThat(c.check(1, 1)).as("tracking restarted from the regression").isNull();
    assertThat(c.check(1, 1)).as("a repeat is a regression too").isEqualTo(
        new EventPlaneFault.SequenceRegression(1, 2, 1));
    assertThat(c.size()).isEqualTo(2);
    assertThat(c.gaps()).isEqualTo(1);
    assertThat(c.missing()).isEqualTo(2);
    assertThat(c.regressions()).isEqualTo(2);
    c.forget(1);
    assertThat(c.size()).isEqualTo(1);
    assertThat(c.check(1, 3)).as("a forgotten publisher is new again").isEqualTo(
        new EventPlaneFault.NewPublisher(1, 3));
    assertThat(c.evictions()).as("forget is not an eviction").isZero();
  }

  /** A late copy through a slower broker: counted, delivered (null), and the baseline stays. */
  @Test
  void underCountALateMessageIsCountedNotReportedAndTheBaselineStays() {
    PublisherSequences c = new PublisherSequences(8, OnRegression.COUNT);
    assertThat(c.check(1, 0)).isInstanceOf(EventPlaneFault.NewPublisher.class);
    assertThat(c.check(1, 2)).isEqualTo(new EventPlaneFault.SequenceGap(1, 1, 2));
    assertThat(c.check(1, 1)).as("late").isNull();
    assertThat(c.check(1, 3)).as("the baseline stayed at 2").isNull();
    assertThat(c.regressions()).isEqualTo(1);
    PublisherSequences observed = new PublisherSequences(8, OnRegression.REPORT_AND_RESTART);
    observed.observe(1, 5);
    assertThat(observed.observe(1, 2)).as("observe reports gaps only").isNull();
    assertThat(observed.observe(1, 3)).as("but the restart happened").isNull();
  }

  @Test
  void checkedSequencesAreUnsignedAndWrap() {
    long top = -2L; // 2^64 - 2
    PublisherSequences c = new PublisherSequences(8, OnRegression.REPORT_AND_RESTART);
    assertThat(c.check(-1L, top)).isEqualTo(new EventPlaneFault.NewPublisher(-1L, top));
    assertThat(c.check(-1L, -1L)).isNull();
    assertThat(c.check(-1L, 0)).as("wraps to 0").isNull();
    assertThat(c.check(-1L, 0)).as("a repeat after the wrap")
        .isEqualTo(new EventPlaneFault.SequenceRegression(-1L, 1, 0));
    PublisherSequences w = new PublisherSequences(8, OnRegression.COUNT);
    w.check(7, -1L);
    assertThat(w.check(7, 5)).as("after 2^64 - 1 comes 0: 5 skips ahead")
        .isEqualTo(new EventPlaneFault.SequenceGap(7, 0, 5));
    PublisherSequences d = new PublisherSequences(8, OnRegression.REPORT_AND_RESTART);
    d.check(5, 1);
    assertThat(d.check(5, Long.MIN_VALUE)).as("2^63 is ahead of 2, not behind")
        .isEqualTo(new EventPlaneFault.SequenceGap(5, 2, Long.MIN_VALUE));
    long big = Long.MAX_VALUE; // 2^63 - 1
    PublisherSequences e = new PublisherSequences(8, OnRegression.REPORT_AND_RESTART);
    e.check(1, big);
    assertThat(e.check(1, big + 1)).as("2^63 follows 2^63 - 1").isNull();
    assertThat(e.check(1, big + 5)).isEqualTo(new EventPlaneFault.SequenceGap(1, big + 2, big + 5));
    assertThat(e.check(1, 3)).isEqualTo(new EventPlaneFault.SequenceRegression(1, big + 6, 3));
  }

  @Test
  void aForgottenPublisherIsCheckedAsNewAgainAndCounted() {
    PublisherSequences c = new PublisherSequences(2, OnRegression.REPORT_AND_RESTART);
    c.check(1, 0);
    c.check(2, 0);
    c.check(1, 1); // 2 is now the least recently heard
    assertThat(c.check(3, 0)).isEqualTo(new EventPlaneFault.NewPublisher(3, 0));
    assertThat(c.evictions()).isEqualTo(1);
    assertThat(c.check(1, 2)).as("1 was kept").isNull();
    assertThat(c.check(2, 1)).isEqualTo(new EventPlaneFault.NewPublisher(2, 1));
    assertThat(c.evictions()).isEqualTo(2);
    assertThatThrownBy(() -> new PublisherSequences(0, OnRegression.REPORT_AND_RESTART))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Interleaved in-order publishers, some messages dropped, under either rule: each publisher that delivered
   * anything is one NewPublisher at its first delivered sequence, the gaps' missing messages are exactly the
   * drops between delivered messages, and nothing is a regression.
   */
  @Test
  void newPublishersAndGapsAccountForEveryDeliveredAndDroppedMessage() {
    qt().forAll(lists().of(integers().between(0, 11)).ofSizeBetween(1, 400), integers().between(0, 1))
        .checkAssert((choices, rule) -> {
          PublisherSequences c = new PublisherSequences(16, OnRegression.values()[rule]);
          Map<Long, Long> next = new HashMap<>();
          Map<Long, Long> firstDelivered = new HashMap<>();
          Map<Long, Long> pendingDrops = new HashMap<>();
          long dropsBetween = 0;
          long missing = 0;
          Map<Long, Long> newAt = new HashMap<>();
          for (int choice : choices) {
            long publisher = choice % 4;
            long seq = next.merge(publisher, 1L, Long::sum) - 1;
            if (choice >= 8) {
              pendingDrops.merge(publisher, 1L, Long::sum);
              continue;
            }
            if (firstDelivered.putIfAbsent(publisher, seq) != null) {
              dropsBetween += pendingDrops.getOrDefault(publisher, 0L);
            }
            pendingDrops.remove(publisher);
            EventPlaneFault.SequenceFault f = c.check(publisher, seq);
            if (f instanceof EventPlaneFault.NewPublisher p) {
              assertThat(newAt.put(p.publisherId(), p.receivedSequence())).as("one NewPublisher per id").isNull();
            } else if (f instanceof EventPlaneFault.SequenceGap g) {
              missing += g.missing();
            } else {
              assertThat(f).as("no regression in an in-order stream").isNull();
            }
          }
          assertThat(newAt).isEqualTo(firstDelivered);
          assertThat(missing).isEqualTo(dropsBetween).isEqualTo(c.missing());
          assertThat(c.regressions()).isZero();
          assertThat(c.evictions()).isZero();
        });
  }

  /** One publisher starting anywhere in the unsigned range (wrapping included), skipping ahead at random. */
  @Test
  void gapsAccountForEverySkippedSequenceFromAnyStart() {
    qt().withExamples(500).forAll(longs().all(), integers().between(1, 400)).checkAssert((seed, n) -> {
      SplittableRandom r = new SplittableRandom(seed);
      PublisherSequences c = new PublisherSequences(4, OnRegression.REPORT_AND_RESTART);
      long seq = r.nextLong();
      long skipped = 0;
      long missed = 0;
      int news = 0;
      for (int i = 0; i < n; i++) {
        if (i > 0 && r.nextInt(4) == 0) {
          int skip = 1 + r.nextInt(5);
          seq += skip;
          skipped += skip;
        }
        EventPlaneFault.SequenceFault b = c.check(42, seq);
        if (b instanceof EventPlaneFault.SequenceGap g) {
          missed += g.missing();
        } else if (b instanceof EventPlaneFault.NewPublisher) {
          news++;
        } else {
          assertThat(b).isNull();
        }
        seq++;
      }
      assertThat(news).isEqualTo(1);
      assertThat(missed).isEqualTo(skipped);
    });
  }
}
