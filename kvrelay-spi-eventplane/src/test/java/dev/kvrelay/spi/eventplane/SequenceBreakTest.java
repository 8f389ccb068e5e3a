package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The sequence-break values and the listener's default (planes without sequence tracking stay source-compatible). */
class SequenceBreakTest {

  @Test
  void gapCountsTheMissingMessagesUnsigned() {
    long top = Long.parseUnsignedLong("18446744073709551615");
    SequenceBreak.Gap g = new SequenceBreak.Gap(1, Long.parseUnsignedLong("18446744073709551610"), top);
    assertThat(g.missed()).isEqualTo(5);
    assertThat(g.toString()).contains("18446744073709551610").contains("18446744073709551615");
    assertThat(new SequenceBreak.Gap(9, 3, 10).missed()).isEqualTo(7);
  }

  @Test
  void newPublisherFromStartOnlyAtSequenceZero() {
    assertThat(new SequenceBreak.NewPublisher(-1L, 0).fromStart()).isTrue();
    assertThat(new SequenceBreak.NewPublisher(-1L, 1).fromStart()).isFalse();
    assertThat(new SequenceBreak.NewPublisher(-1L, 0).toString()).contains("18446744073709551615");
    assertThat(new SequenceBreak.Regression(-2L, 8, 0).toString()).contains("18446744073709551614");
  }

  @Test
  void listenersWithoutTheMethodIgnoreBreaks() {
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
    l.onSequenceBreak(new SequenceBreak.Gap(1, 2, 3));
    assertThat(calls).hasValue(0);
  }
}
