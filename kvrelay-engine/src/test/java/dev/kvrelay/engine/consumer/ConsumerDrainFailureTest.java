package dev.kvrelay.engine.consumer;

import static dev.kvrelay.engine.consumer.RelayConsumerTest.A;
import static dev.kvrelay.engine.consumer.RelayConsumerTest.B;
import static dev.kvrelay.engine.consumer.RelayConsumerTest.BLOCKS;
import static dev.kvrelay.engine.consumer.RelayConsumerTest.REQUEST;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Not thread-safe: confined to the test thread. A pool stream of the embedder's {@link RelaySource} whose poll
 * throws an unchecked exception (a transport bug, not a relay error): the drain's failure shows in
 * {@link ConsumerStats#drainFailures()}, and the consumer goes on applying that stream's frames.
 */
class ConsumerDrainFailureTest {
  @Test
  void aPoolStreamWhosePollThrowsIsCountedAndTheNextFramesStillApply() {
    ConsumerFixture f = RelayConsumerTest.twoDcs(5, 9);
    assertThat(f.consumer.stats().drainFailures()).isZero();
    var stream = f.relay(0).hub(A.producer()).liveStreams().get(0);
    long applied = f.consumer.stats().framesApplied();

    stream.failNextPoll(new IllegalStateException("transport bug"));
    f.relay(0).hub(A.producer()).store(Arrays.copyOfRange(BLOCKS, 5, 8), false);
    f.relay(0).hub(A.producer()).publish(); // signals the drain, whose first poll throws
    f.run();
    ConsumerStats afterFailure = f.consumer.stats();
    assertThat(afterFailure.drainFailures()).isEqualTo(1);
    assertThat(afterFailure.framesApplied()).as("the delta is still queued").isEqualTo(applied);
    assertThat(afterFailure.poolStreamErrors()).as("not a relay error").isEmpty();
    assertThat(afterFailure.invalidations()).isEmpty();

    // The next frame signals the drain again: it takes the delta left behind and the new heartbeat.
    f.relay(0).hub(A.producer()).heartbeat();
    f.run();
    ConsumerStats later = f.consumer.stats();
    assertThat(later.drainFailures()).isEqualTo(1);
    assertThat(later.framesApplied()).isEqualTo(applied + 2);
    assertThat(stream.isLive()).as("the same stream, never closed").isTrue();
    f.assertMirrors(A.producer(), f.relay(0));
    f.assertMirrors(B.producer(), f.relay(1));
    assertThat(RelayConsumerTest.depth(f.consumer.query(REQUEST, "llama"), A)).isEqualTo(8);
  }
}
