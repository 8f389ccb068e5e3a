package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.spi.eventplane.EventPlaneFault;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Per-publisher sequence tracking (runtime-inputs §5.4: 0 first, +1 per message, unsigned). */
class SequenceTrackerTest {

  @Test
  void firstMessageIsANewPublisherThenInOrderIsSilent() {
    SequenceTracker t = new SequenceTracker(false);
    assertThat(t.observe(5, 0).signal()).isEqualTo(new EventPlaneFault.NewPublisher(5, 0));
    assertThat(t.observe(5, 1).signal()).isNull();
    assertThat(t.observe(6, 9).signal()).isEqualTo(new EventPlaneFault.NewPublisher(6, 9));
    assertThat(t.observe(5, 2).signal()).isNull();
    assertThat(t.observe(5, 4).signal()).isEqualTo(new EventPlaneFault.SequenceGap(5, 3, 4));
    assertThat(t.observe(5, 1).signal()).isEqualTo(new EventPlaneFault.SequenceRegression(5, 5, 1));
    assertThat(t.observe(5, 2).signal()).as("tracking restarted at the regression").isNull();
    t.forget(5);
    assertThat(t.observe(5, 3).signal()).isEqualTo(new EventPlaneFault.NewPublisher(5, 3));
  }

  @Test
  void sequencesAreUnsigned() {
    SequenceTracker t = new SequenceTracker(false);
    long big = Long.parseUnsignedLong("9223372036854775807"); // 2^63 - 1
    t.observe(1, big);
    assertThat(t.observe(1, big + 1).signal()).as("2^63 follows 2^63 - 1").isNull();
    assertThat(t.observe(1, big + 5).signal()).isEqualTo(new EventPlaneFault.SequenceGap(1, big + 2, big + 5));
    assertThat(t.observe(1, 3).signal()).isInstanceOf(EventPlaneFault.SequenceRegression.class);
  }

  @Test
  void withSeveralBrokersDuplicatesAreDroppedAndLateMessagesDelivered() {
    SequenceTracker t = new SequenceTracker(true);
    assertThat(t.observe(1, 0).signal()).isInstanceOf(EventPlaneFault.NewPublisher.class);
    assertThat(t.observe(1, 0).duplicate()).isTrue();
    assertThat(t.observe(1, 2).signal()).isEqualTo(new EventPlaneFault.SequenceGap(1, 1, 2));
    SequenceTracker.Outcome late = t.observe(1, 1);
    assertThat(late.duplicate()).isFalse();
    assertThat(late.signal()).isNull();
    assertThat(t.observe(1, 2).duplicate()).isTrue();
    assertThat(t.observe(1, 3).signal()).isNull();
  }

  @Test
  void gapsAccountForEverySkippedSequence() {
    qt().withExamples(500).forAll(longs().all(), integers().between(1, 400)).checkAssert((seed, n) -> {
      SplittableRandom r = new SplittableRandom(seed);
      SequenceTracker t = new SequenceTracker(false);
      long start = r.nextLong();
      long seq = start;
      long skipped = 0;
      long missed = 0;
      int news = 0;
      for (int i = 0; i < n; i++) {
        if (i > 0 && r.nextInt(4) == 0) {
          int skip = 1 + r.nextInt(5);
          seq += skip;
          skipped += skip;
        }
        EventPlaneFault.SequenceFault b = t.observe(42, seq).signal();
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
