package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.spi.eventplane.EventPlaneFault;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The NATS plane's per-publisher sequence rule (the ZMQ plane's): new publisher, gap, regression with tracking
 * restarted, unsigned sequences, bounded memory. The real-server behaviour is in {@code NatsPublisherChangeTest}.
 */
class NatsSequenceCheckTest {

  @Test
  void firstMessageIsANewPublisherThenGapsAndOneRegressionPerRestart() {
    NatsSequenceCheck c = new NatsSequenceCheck(8);
    assertThat(c.observe(1, 0)).isEqualTo(new EventPlaneFault.NewPublisher(1, 0));
    assertThat(c.observe(1, 1)).isNull();
    assertThat(c.observe(2, 17)).isEqualTo(new EventPlaneFault.NewPublisher(2, 17));
    assertThat(c.observe(1, 4)).isEqualTo(new EventPlaneFault.SequenceGap(1, 2, 4));
    assertThat(c.observe(1, 5)).isNull();
    assertThat(c.observe(1, 0)).isEqualTo(new EventPlaneFault.SequenceRegression(1, 6, 0));
    assertThat(c.observe(1, 1)).as("tracking restarted from the regression").isNull();
    assertThat(c.observe(1, 1)).as("a repeat is a regression too").isEqualTo(
        new EventPlaneFault.SequenceRegression(1, 2, 1));
    assertThat(c.size()).isEqualTo(2);
  }

  @Test
  void sequencesAreUnsigned() {
    long top = -2L; // 2^64 - 2
    NatsSequenceCheck c = new NatsSequenceCheck(8);
    assertThat(c.observe(-1L, top)).isEqualTo(new EventPlaneFault.NewPublisher(-1L, top));
    assertThat(c.observe(-1L, -1L)).isNull();
    assertThat(c.observe(-1L, 0)).as("wraps to 0").isNull();
    NatsSequenceCheck d = new NatsSequenceCheck(8);
    d.observe(5, 1);
    assertThat(d.observe(5, Long.MIN_VALUE)).as("2^63 is ahead of 2, not behind")
        .isEqualTo(new EventPlaneFault.SequenceGap(5, 2, Long.MIN_VALUE));
  }

  @Test
  void aForgottenPublisherIsNewAgainAndCounted() {
    NatsSequenceCheck c = new NatsSequenceCheck(2);
    c.observe(1, 0);
    c.observe(2, 0);
    c.observe(1, 1); // 2 is now the least recently heard
    assertThat(c.observe(3, 0)).isEqualTo(new EventPlaneFault.NewPublisher(3, 0));
    assertThat(c.evictions()).isEqualTo(1);
    assertThat(c.observe(1, 2)).as("1 was kept").isNull();
    assertThat(c.observe(2, 1)).isEqualTo(new EventPlaneFault.NewPublisher(2, 1));
    assertThat(c.evictions()).isEqualTo(2);
    assertThatThrownBy(() -> new NatsSequenceCheck(0)).isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Interleaved in-order publishers, some messages dropped: each publisher that delivered anything is one
   * NewPublisher at its first delivered sequence, the gaps' missing messages are exactly the drops between
   * delivered messages, and nothing is a regression.
   */
  @Test
  void newPublishersAndGapsAccountForEveryDeliveredAndDroppedMessage() {
    qt().forAll(lists().of(integers().between(0, 11)).ofSizeBetween(1, 400)).checkAssert(choices -> {
      NatsSequenceCheck c = new NatsSequenceCheck(16);
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
        EventPlaneFault.SequenceFault f = c.observe(publisher, seq);
        if (f instanceof EventPlaneFault.NewPublisher p) {
          assertThat(newAt.put(p.publisherId(), p.receivedSequence())).as("one NewPublisher per id").isNull();
        } else if (f instanceof EventPlaneFault.SequenceGap g) {
          missing += g.missing();
        } else {
          assertThat(f).as("no regression in an in-order stream").isNull();
        }
      }
      assertThat(newAt).isEqualTo(firstDelivered);
      assertThat(missing).isEqualTo(dropsBetween);
      assertThat(c.evictions()).isZero();
    });
  }
}
