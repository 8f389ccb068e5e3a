package dev.kvrelay.spi.discovery;

import static dev.kvrelay.spi.discovery.TestRecords.byKey;
import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static dev.kvrelay.spi.discovery.TestRecords.model;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** In-memory specifics beyond the backend contract. */
class InMemoryDiscoveryTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Test
  void putJsonDecodesValidValuesAndKeepsStateOnMalformedOnes() throws Exception {
    try (InMemoryDiscovery store = new InMemoryDiscovery()) {
      EndpointRecord valid = (EndpointRecord) DiscoveryCodec.decode(DiscoveryCodecTest.ENDPOINT_EXAMPLE);
      assertThat(store.putJson(DiscoveryKind.ENDPOINT, valid.key().path(), DiscoveryCodecTest.ENDPOINT_EXAMPLE)).isEmpty();
      assertThat(store.records()).containsExactly(valid);
      // Garbage at the same key: reported, and the stored record stays.
      assertThat(store.putJson(DiscoveryKind.ENDPOINT, valid.key().path(), "{")).hasValueSatisfying(
          e -> assertThat(e.reason()).isEqualTo(DiscoveryDecodeException.Reason.INVALID_JSON));
      assertThat(store.records()).containsExactly(valid);
      // A valid value at the wrong path is a key mismatch.
      assertThat(store.putJson(DiscoveryKind.ENDPOINT, "dynamo/backend/generate/1", DiscoveryCodecTest.ENDPOINT_EXAMPLE))
          .hasValueSatisfying(e -> assertThat(e.reason()).isEqualTo(DiscoveryDecodeException.Reason.KEY_MISMATCH));
      assertThat(store.records()).containsExactly(valid);
      // Removing the key also forgets its malformed value.
      assertThat(store.remove(valid.key())).isTrue();
      RecordingListener l = new RecordingListener();
      try (DiscoveryWatch w = store.watch(DiscoveryScope.watchAll(), l)) {
        l.await(TIMEOUT, "snapshot", x -> x.eventCount() >= 1);
        Thread.sleep(100);
        assertThat(l.errors()).hasSize(1); // only the mismatched path remains reported
      }
    }
  }

  @Test
  void aWatchCanCloseItselfFromItsCallback() throws Exception {
    try (InMemoryDiscovery store = new InMemoryDiscovery()) {
      AtomicReference<DiscoveryWatch> self = new AtomicReference<>();
      CountDownLatch closed = new CountDownLatch(1);
      RecordingListener recorder = new RecordingListener();
      DiscoveryListener closing = new ForwardingListener(recorder) {
        @Override
        public void onUpserted(DiscoveryRecord record) {
          super.onUpserted(record);
          while (self.get() == null) {
            Thread.onSpinWait();
          }
          self.get().close();
          closed.countDown();
        }
      };
      self.set(store.watch(DiscoveryScope.watchAll(), closing));
      store.put(endpoint("n", "c", "e", 1, "h:1/e"));
      store.put(endpoint("n", "c", "e", 2, "h:2/e"));
      assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(100);
      assertThat(recorder.payloads("upserted")).hasSize(1);
      assertThat(store.watchCount()).isZero();
    }
  }

  @Test
  void aThrowingListenerDoesNotStopTheWatch() throws Exception {
    try (InMemoryDiscovery store = new InMemoryDiscovery()) {
      RecordingListener recorder = new RecordingListener();
      DiscoveryListener flaky = new ForwardingListener(recorder) {
        @Override
        public void onUpserted(DiscoveryRecord record) {
          super.onUpserted(record);
          if (((EndpointRecord) record).instanceId() == 1) {
            throw new IllegalStateException("listener bug");
          }
        }
      };
      store.watch(DiscoveryScope.watchAll(), flaky);
      EndpointRecord one = endpoint("n", "c", "e", 1, "h:1/e");
      EndpointRecord two = endpoint("n", "c", "e", 2, "h:2/e");
      store.put(one);
      store.put(two);
      recorder.awaitView(TIMEOUT, byKey(List.of(one, two)));
    }
  }

  @Test
  void outageHoldsBackDeliveryUntilResync() throws Exception {
    try (InMemoryDiscovery store = new InMemoryDiscovery()) {
      RecordingListener l = new RecordingListener();
      store.watch(DiscoveryScope.watchAll(), l);
      l.await(TIMEOUT, "snapshot", x -> x.eventCount() >= 1);
      store.beginOutage();
      ModelRecord m = model("n", "c", "e", 1, null, "m");
      store.put(m);
      assertThat(store.updateTaints(m.key(), List.of("t"))).isTrue();
      assertThat(store.putJson(DiscoveryKind.MODEL, "n/c/e/2", "nope")).isPresent();
      Thread.sleep(100);
      assertThat(l.eventCount()).isEqualTo(1);
      store.simulateResync();
      l.await(TIMEOUT, "resync and error", x -> !x.payloads("resync").isEmpty() && x.errors().size() == 1);
      assertThat(l.view()).isEqualTo(byKey(List.of(m.withTaints(List.of("t")))));
      assertThat(store.get(m.key())).contains(m.withTaints(List.of("t")));
      assertThat(store.updateTaints(new ModelKey(m.key().endpoint(), 9, null), List.of("x"))).isFalse();
      l.assertContractKept();
    }
  }

  @Test
  void theProviderOpensIndependentStores() throws Exception {
    InMemoryDiscoveryProvider provider = new InMemoryDiscoveryProvider();
    try (InMemoryDiscovery a = (InMemoryDiscovery) provider.open(DiscoverySettings.empty());
        InMemoryDiscovery b = (InMemoryDiscovery) provider.open(DiscoverySettings.empty())) {
      a.put(endpoint("n", "c", "e", 1, "h:1/e"));
      assertThat(b.records()).isEmpty();
    }
  }
}
