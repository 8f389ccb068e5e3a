package dev.kvrelay.grpc.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.FilterUpdateKind;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flow control (wan-grpc.md §3.3 "Java: honour isReady/onReady"): the server never pushes more than the transport
 * takes, so a client that stops reading is cut off by the engine's bounded queues with a typed error while a
 * draining subscriber of the same pool keeps flowing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlowControlTest {
  /** 6 000 000 expected blocks ⇒ 2 097 152 buckets ⇒ 4 snapshot chunks of 4 MiB each. */
  static final long EXPECTED_BLOCKS = 6_000_000;
  /**
   * Snapshot progress timeout: long enough that a draining reader on a loaded machine never trips it (a 4 MiB
   * chunk crosses loopback well within it), short enough to keep the test quick.
   */
  static final long PROGRESS_TIMEOUT_MS = 1_000;

  @Test
  void stalledSubscriber_endsWithResourceExhaustedWhileADrainingSubscriberKeepsFlowing() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config(EXPECTED_BLOCKS)
        .snapshotProgressTimeoutMs(PROGRESS_TIMEOUT_MS).publicationQueueCapacity(4))) {
      ServerFixture.Worker w = f.worker(1).start();
      ProducerIdentity producer = KvEventRelayConformanceTest.catalogProducer(f);
      int chunks = (int) ((producer.getCkfFormat().getBucketCount() + 524_287) / 524_288);
      assertThat(chunks).as("a multi-chunk snapshot").isEqualTo(4);

      ServerFixture.Collector<FilterUpdate> stalled = new ServerFixture.Collector<>(true);
      f.async.subscribeKvPool(KvEventRelayConformanceTest.subscribe("stalled/ckf", producer), stalled);
      ServerFixture.Collector<FilterUpdate> draining = new ServerFixture.Collector<>();
      f.async.subscribeKvPool(KvEventRelayConformanceTest.subscribe("draining/ckf", producer), draining);

      List<FilterUpdate> snapshot = KvEventRelayConformanceTest.snapshot(draining);
      assertThat(snapshot).hasSize(chunks);
      long current = snapshot.get(0).getSequence();
      // The draining subscriber keeps receiving contiguous deltas well past the stalled one's progress timeout.
      int deltas = 0;
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PROGRESS_TIMEOUT_MS + 500);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while (System.nanoTime() < until || deltas < 8) {
        assertThat(System.nanoTime()).as("deltas keep flowing").isLessThan(deadline);
        w.storeBlock();
        FilterUpdate u = draining.messages.poll(20, TimeUnit.MILLISECONDS);
        while (u != null) {
          if (u.getKind() == FilterUpdateKind.FILTER_UPDATE_KIND_DELTA) {
            assertThat(u.getBaseSequence()).isEqualTo(current);
            current = u.getSequence();
            deltas++;
          }
          u = draining.messages.poll();
        }
      }
      assertThat(draining.end).as("the draining subscriber is never cut off").isNotDone();

      // The stalled client now reads: it gets what the transport already held, then the typed error.
      stalled.request(Integer.MAX_VALUE);
      Status end = stalled.awaitEnd();
      assertThat(end.getCode()).as("status %s", end).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(stalled.reason()).isIn(RelayErrorReason.SNAPSHOT_PROGRESS_TIMEOUT.wireName(),
          RelayErrorReason.SUBSCRIBER_LAGGED.wireName());
      long snapshotChunks = stalled.messages.stream()
          .filter(u -> u.getKind() == FilterUpdateKind.FILTER_UPDATE_KIND_SNAPSHOT_CHUNK).count();
      assertThat(snapshotChunks).as("the server did not push the whole snapshot at a reader that never asked")
          .isLessThan(chunks);
      assertThat(draining.end).isNotDone();
      draining.cancel();
    }
  }
}
