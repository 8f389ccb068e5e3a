package dev.kvrelay.discovery.kubernetes;

import static dev.kvrelay.discovery.kubernetes.Workers.recordsOf;
import static dev.kvrelay.discovery.kubernetes.Workers.specData;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Measures watch → listener latency on the mock API server: 1,000 CR changes (10 bursts after a warm-up
 * burst, each changing the endpoint address of 100 distinct workers once), each timed from the start of its
 * write (the PUT; the server may notify watchers before it answers) to its {@code onUpserted}. Asserts that every change arrives, in order per worker; prints
 * p50/p99 (with the §3.2 debounce and without one). Correctness, not speed, is asserted.
 */
class WatchLatencyTest {
  private static final int WORKERS = 100;
  private static final int BURSTS = 10;

  /** Thread-safe: records when each endpoint address was delivered. */
  static final class Timing implements DiscoveryListener {
    final Map<String, Long> deliveredAt = new ConcurrentHashMap<>();
    final Map<DiscoveryKey, String> last = new ConcurrentHashMap<>();
    volatile boolean outOfOrder;

    @Override
    public void onSnapshot(List<DiscoveryRecord> records) {
      records.forEach(this::onUpserted);
    }

    @Override
    public void onUpserted(DiscoveryRecord record) {
      long now = System.nanoTime();
      if (record instanceof EndpointRecord) {
        String address = ((Transport.Tcp) ((EndpointRecord) record).transport()).address();
        deliveredAt.putIfAbsent(address, now);
        String before = last.put(record.key(), address);
        if (before != null && burstOf(before) > burstOf(address)) {
          outOfOrder = true;
        }
      }
    }

    @Override
    public void onRemoved(DiscoveryKey key) {}

    @Override
    public void onModelTaintsUpdated(ModelKey key, List<String> taints) {}

    @Override
    public void onResync(List<DiscoveryRecord> records) {
      records.forEach(this::onUpserted);
    }

    @Override
    public void onError(DiscoveryException error) {}
  }

  private static String address(int burst, int worker) {
    return "10." + burst + "." + (worker / 250) + "." + (worker % 250) + ":9999/generate";
  }

  private static int burstOf(String address) {
    return Integer.parseInt(address.substring(3, address.indexOf('.', 3)));
  }

  @ParameterizedTest(name = "debounce {0} ms")
  @ValueSource(longs = {500, 0})
  void watchToListenerLatencyOverAThousandChanges(long debounceMs) throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      for (int w = 0; w < WORKERS; w++) {
        String pod = "worker-" + w;
        cluster.putCr(pod, "uid-" + pod, specData(recordsOf(pod, address(0, w))));
        cluster.putSlice("slice-" + pod, List.of(new MockCluster.SliceEndpoint(pod, "uid-" + pod, true)), null);
      }
      KubernetesDiscovery backend = KubernetesDiscovery.start(cluster.backendClient(),
          MockCluster.options(ReadinessMode.POD, Duration.ofMillis(debounceMs)), true);
      Timing timing = new Timing();
      backend.watch(DiscoveryScope.watchAll(), timing);
      MockCluster.await(Duration.ofSeconds(60), "the initial workers",
          () -> timing.last.size() == WORKERS);

      List<Long> latenciesNs = new ArrayList<>();
      for (int b = 1; b <= BURSTS + 1; b++) { // burst 1 warms up (JIT, Jackson) and is not measured
        long[] writtenAt = new long[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
          String pod = "worker-" + w;
          writtenAt[w] = System.nanoTime(); // before the PUT: the server may notify before it answers
          cluster.replaceCrData(pod, "uid-" + pod, specData(recordsOf(pod, address(b, w))));
        }
        int burst = b;
        MockCluster.await(Duration.ofSeconds(60), "burst " + b, () -> {
          for (int w = 0; w < WORKERS; w++) {
            if (!timing.deliveredAt.containsKey(address(burst, w))) {
              return false;
            }
          }
          return true;
        });
        for (int w = 0; b > 1 && w < WORKERS; w++) {
          latenciesNs.add(timing.deliveredAt.get(address(b, w)) - writtenAt[w]);
        }
      }
      assertThat(timing.outOfOrder).as("a worker's versions out of order").isFalse();
      assertThat(latenciesNs).hasSize(WORKERS * BURSTS);
      long[] sorted = latenciesNs.stream().mapToLong(Long::longValue).sorted().toArray();
      System.out.printf("kubernetes watch->listener latency, debounce %d ms, %d changes: p50 %.1f ms, p99 %.1f ms,"
              + " max %.1f ms (mock API server, CRUD mode; %d recomputes)%n", debounceMs, sorted.length,
          pct(sorted, 0.50), pct(sorted, 0.99), sorted[sorted.length - 1] / 1e6, backend.stats().recomputes());
      backend.close();
      assertThat(Arrays.stream(sorted).min().orElseThrow()).as("delivered before its write began").isPositive();
    }
  }

  private static double pct(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
  }
}
