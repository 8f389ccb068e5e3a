package dev.kvrelay.discovery.etcd;

import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.ModelKey;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Test;

/**
 * Measures, on loopback against a real etcd, the time from issuing a PUT to the listener's callback, one
 * change at a time, and prints p50 / p99 / max. It asserts correctness only (every change arrives, intact,
 * in order), never speed.
 */
class EtcdWatchLatencyTest {
  private static final int WARMUP = 200;
  private static final int CHANGES = 2_000;
  @RegisterExtension static final EtcdServerExtension ETCD = new EtcdServerExtension();

  /** Thread-safe (a queue): hands each upsert and its arrival time to the measuring thread. */
  private static final class Arrivals implements DiscoveryListener {
    record Arrival(long nanos, DiscoveryRecord record) {}

    final BlockingQueue<Arrival> queue = new LinkedBlockingQueue<>();
    final BlockingQueue<Boolean> snapshot = new LinkedBlockingQueue<>();

    @Override
    public void onSnapshot(List<DiscoveryRecord> records) {
      snapshot.add(true);
    }

    @Override
    public void onUpserted(DiscoveryRecord record) {
      queue.add(new Arrival(System.nanoTime(), record));
    }

    @Override
    public void onRemoved(DiscoveryKey key) {}

    @Override
    public void onModelTaintsUpdated(ModelKey key, List<String> taints) {}

    @Override
    public void onResync(List<DiscoveryRecord> records) {}

    @Override
    public void onError(DiscoveryException error) {}
  }

  @Test
  void putToListenerLatencyOnLoopback() throws Exception {
    try (EtcdWorld w = new EtcdWorld(ETCD.server(), Map.of())) {
      Arrivals l = new Arrivals();
      try (DiscoveryWatch watch = w.backend.watch(DiscoveryScope.watchAll(), l)) {
        assertThat(l.snapshot.poll(20, TimeUnit.SECONDS)).isTrue();
        long[] putToListener = new long[CHANGES];
        long[] putAck = new long[CHANGES];
        long[] ackToListener = new long[CHANGES]; // negative when the event beat the PUT's own reply
        for (int i = 0; i < WARMUP + CHANGES; i++) {
          EndpointRecord r = endpoint("lat", "backend", "generate", 1 + (i % 64), "10.0.0.1:" + i + "/generate");
          long t0 = System.nanoTime();
          w.put(r); // returns once etcd has committed the write
          long acked = System.nanoTime();
          Arrivals.Arrival a = l.queue.poll(20, TimeUnit.SECONDS);
          assertThat(a).as("change %d arrives", i).isNotNull();
          assertThat(a.record()).as("change %d arrives intact and in order", i).isEqualTo(r);
          if (i >= WARMUP) {
            putToListener[i - WARMUP] = a.nanos() - t0;
            putAck[i - WARMUP] = acked - t0;
            ackToListener[i - WARMUP] = a.nanos() - acked;
          }
        }
        assertThat(l.queue).isEmpty();
        assertThat(w.backend.stats().decodeFailures()).isZero();
        System.out.println(String.format(Locale.ROOT,
            "etcd watch latency over %d changes (loopback, one at a time): PUT issued -> listener p50 %.3f ms, "
                + "p99 %.3f ms, max %.3f ms; PUT round trip p50 %.3f ms, p99 %.3f ms; "
                + "PUT reply -> listener p50 %.3f ms, p99 %.3f ms",
            CHANGES, ms(putToListener, 0.50), ms(putToListener, 0.99), ms(putToListener, 1.0),
            ms(putAck, 0.50), ms(putAck, 0.99), ms(ackToListener, 0.50), ms(ackToListener, 0.99)));
      }
    }
  }

  private static double ms(long[] nanos, double quantile) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int idx = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
    return sorted[Math.max(0, idx)] / 1e6;
  }
}
