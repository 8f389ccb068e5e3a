package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The sequence faults and the listener's default (planes without sequence tracking stay source-compatible). */
class SequenceFaultTest {

  @Test
  void gapCountsTheMissingMessagesUnsigned() {
    long top = Long.parseUnsignedLong("18446744073709551615");
    EventPlaneFault.SequenceGap g = new EventPlaneFault.SequenceGap(1, Long.parseUnsignedLong("18446744073709551610"), top);
    assertThat(g.missing()).isEqualTo(5);
    assertThat(g.describe()).contains("18446744073709551610").contains("18446744073709551615");
    assertThat(new EventPlaneFault.SequenceGap(9, 3, 10).missing()).isEqualTo(7);
  }

  @Test
  void newPublisherFromStartOnlyAtSequenceZero() {
    assertThat(new EventPlaneFault.NewPublisher(-1L, 0).fromStart()).isTrue();
    assertThat(new EventPlaneFault.NewPublisher(-1L, 1).fromStart()).isFalse();
    assertThat(new EventPlaneFault.NewPublisher(-1L, 0).describe()).contains("18446744073709551615");
    assertThat(new EventPlaneFault.SequenceRegression(-2L, 8, 0).describe()).contains("18446744073709551614");
  }

  @Test
  void listenersWithoutTheMethodIgnoreFaults() {
    AtomicInteger calls = new AtomicInteger();
    EventListener l = new EventListener() {
      @Override
      public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
        calls.incrementAndGet();
      }

      @Override
      public void onLoad(EventEnvelope envelope, ActiveLoad load) {
        calls.incrementAndGet();
      }

      @Override
      public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
        calls.incrementAndGet();
      }
    };
    l.onFault(new EventPlaneFault.SequenceGap(1, 2, 3));
    assertThat(calls).hasValue(0);
  }
}
