package dev.kvrelay.discovery.kubernetes;

import static dev.kvrelay.discovery.kubernetes.Workers.byKey;
import static dev.kvrelay.discovery.kubernetes.Workers.recordsOf;
import static dev.kvrelay.discovery.kubernetes.Workers.specData;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.discovery.kubernetes.MockCluster.SliceEndpoint;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.ForwardingListener;
import dev.kvrelay.spi.discovery.QueuedDiscoveryWatch;
import dev.kvrelay.spi.discovery.RecordingListener;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failures of the backend's background work are counted in {@link KubernetesDiscovery#stats()}, not only logged:
 * relists that fail while the API server is unreachable (each retry counted, until one succeeds and resyncs) and
 * listener callbacks that throw (each counted; the watch goes on).
 */
class BackgroundFailuresTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  /**
   * Bounds only a failing run: after an outage fabric8's mock server can block its single event loop for many
   * seconds on a loaded machine (see PodModeTest.goneRelistsAndDeliversTheDiffAsAResync) before it answers again.
   */
  private static final Duration RECOVERY = Duration.ofSeconds(90);

  private MockCluster cluster;
  private KubernetesDiscovery backend;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
  }

  @AfterEach
  void stop() throws Exception {
    if (backend != null) {
      backend.close();
    }
    cluster.close();
  }

  private List<DiscoveryRecord> worker(String pod, String address) {
    List<DiscoveryRecord> records = recordsOf(pod, address);
    cluster.putCr(pod, "uid-" + pod, specData(records));
    cluster.putSlice("slice-" + pod, List.of(new SliceEndpoint(pod, "uid-" + pod, true)), null);
    return records;
  }

  private void startBackend() throws Exception {
    backend = KubernetesDiscovery.start(cluster.backendClient(),
        MockCluster.options(ReadinessMode.POD, Duration.ofMillis(50)), true);
  }

  @Test
  void relistsFailingDuringAnOutageAreCountedAndRetriedUntilOneResyncs() throws Exception {
    List<DiscoveryRecord> w0 = worker("worker-0", "10.0.0.1:9999/generate");
    startBackend();
    RecordingListener listener = new RecordingListener();
    backend.watch(DiscoveryScope.watchAll(), listener);
    listener.awaitView(WAIT, byKey(w0));
    assertThat(backend.stats().relistFailures()).isZero();
    long interruptions = backend.stats().watchInterruptions();

    cluster.proxy.cut(); // the watches are reset and every relist attempt is refused
    MockCluster.await(WAIT, "two failed relists counted", () -> backend.stats().relistFailures() >= 2);
    assertThat(backend.stats().watchInterruptions()).isGreaterThan(interruptions);
    List<DiscoveryRecord> w1 = worker("worker-1", "10.0.0.2:9999/generate"); // written while the backend is cut off

    cluster.proxy.restore();
    listener.awaitView(RECOVERY, byKey(w0, w1));
    assertThat(listener.resyncDiffs()).isNotEmpty();
    assertThat(listener.resyncDiffs().get(listener.resyncDiffs().size() - 1).upserted())
        .containsExactlyInAnyOrderElementsOf(w1);
    assertThat(listener.errors()).isNotEmpty().allSatisfy(e ->
        assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.WATCH_INTERRUPTED));
    assertThat(backend.stats().taskFailures()).isZero();
    assertThat(backend.stats().listenerFailures()).isZero();
    listener.assertContractKept();
  }

  @Test
  void listenerCallbacksThatThrowAreCountedAndTheWatchGoesOn() throws Exception {
    List<DiscoveryRecord> w0 = worker("worker-0", "10.0.0.1:9999/generate");
    startBackend();
    RecordingListener recorded = new RecordingListener();
    DiscoveryWatch watch = backend.watch(DiscoveryScope.watchAll(), new ThrowingOnUpserts(recorded));
    recorded.awaitView(WAIT, byKey(w0));
    assertThat(backend.stats().listenerFailures()).isZero(); // the snapshot did not throw

    List<DiscoveryRecord> w1 = worker("worker-1", "10.0.0.2:9999/generate");
    recorded.awaitView(WAIT, byKey(w0, w1)); // each upsert threw after it was recorded: delivery went on
    int upserts = recorded.payloads("upserted").size();
    assertThat(upserts).isEqualTo(w1.size());
    MockCluster.await(WAIT, "every thrown upsert counted", () -> backend.stats().listenerFailures() == upserts);
    assertThat(((QueuedDiscoveryWatch) watch).listenerFailures()).isEqualTo(upserts);

    List<DiscoveryRecord> w2 = worker("worker-2", "10.0.0.3:9999/generate");
    recorded.awaitView(WAIT, byKey(w0, w1, w2));
    MockCluster.await(WAIT, "the later upserts counted too",
        () -> backend.stats().listenerFailures() == upserts + w2.size());
    assertThat(backend.stats().taskFailures()).isZero();
    recorded.assertContractKept();
  }

  /** Thread-safe as its delegate: records every callback in {@code delegate}, then throws from {@code onUpserted}. */
  private static final class ThrowingOnUpserts extends ForwardingListener {
    ThrowingOnUpserts(RecordingListener delegate) {
      super(delegate);
    }

    @Override
    public void onUpserted(DiscoveryRecord record) {
      super.onUpserted(record);
      throw new IllegalStateException("listener bug (test): " + record.key());
    }
  }
}
