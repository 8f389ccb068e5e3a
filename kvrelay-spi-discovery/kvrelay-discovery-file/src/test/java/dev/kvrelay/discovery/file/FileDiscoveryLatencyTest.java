package dev.kvrelay.discovery.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.Transport;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publish → listener latency over 1,000 changes (after 200 unmeasured ones) (a registration's temp file + link/rename, the inotify event, the
 * scanner's read and decode, the watch's delivery thread). It prints p50/p99 for the README and asserts only that
 * every change arrives, in order.
 */
class FileDiscoveryLatencyTest {
  private static final int WARMUP = 200;
  private static final int CHANGES = 1_000;

  @TempDir Path root;

  /** Thread-safe: hands each upsert (with its arrival time) to the test thread. */
  private static final class Arrivals implements DiscoveryListener {
    final BlockingQueue<Object[]> queue = new LinkedBlockingQueue<>();

    @Override
    public void onSnapshot(List<DiscoveryRecord> records) {}

    @Override
    public void onUpserted(DiscoveryRecord record) {
      queue.add(new Object[] {record, System.nanoTime()});
    }

    @Override
    public void onRemoved(DiscoveryKey key) {}

    @Override
    public void onModelTaintsUpdated(ModelKey key, List<String> taints) {}

    @Override
    public void onResync(List<DiscoveryRecord> records) {}

    @Override
    public void onError(DiscoveryException error) {
      queue.add(new Object[] {error, System.nanoTime()});
    }
  }

  @Test
  void publishToListenerLatency() throws Exception {
    try (FileDiscovery d = FileDiscovery.builder(root).open()) {
      Arrivals arrivals = new Arrivals();
      d.watch(DiscoveryScope.watchAll(), arrivals);
      FileKvRegistration own = d.register();
      EndpointKey key = new EndpointKey(new DynamoEndpointId("bench", "backend", "generate"), own.connectionId());
      long[] micros = new long[CHANGES];
      for (int i = -WARMUP; i < CHANGES; i++) {
        EndpointRecord version = new EndpointRecord(key, new Transport.Tcp("127.0.0.1:" + (20_000 + i) + "/generate"),
            "msgpack", null);
        long start = System.nanoTime();
        own.put(version);
        Object[] arrival = arrivals.queue.poll(20, TimeUnit.SECONDS);
        assertThat(arrival).as("change %d delivered", i).isNotNull();
        assertThat(arrival[0]).as("change %d", i).isEqualTo(version);
        if (i >= 0) {
          micros[i] = ((Long) arrival[1] - start) / 1_000;
        }
      }
      Arrays.sort(micros);
      System.out.printf("file discovery publish->listener latency over %d changes (after %d warm-up): p50 %d us, p99 %d us, max %d us%n",
          CHANGES, WARMUP, micros[CHANGES / 2], micros[CHANGES * 99 / 100], micros[CHANGES - 1]);
      assertThat(d.stats().badFiles()).isZero();
    }
  }
}
