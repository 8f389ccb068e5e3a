package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-publisher envelope sequence check and the fault values it reports. */
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
}
