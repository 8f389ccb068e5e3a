package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.PlaneE2E;
import dev.kvrelay.engine.PythonWorker;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.engine.stats.RelayEngineStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end through the engine on the NATS plane and a real Debian nats-server: 3 independent Python workers
 * ({@code kv_worker.py}: raw NATS protocol over a socket, python3-msgpack) × 2 data-parallel ranks publish
 * kv-events on the kv-state endpoint's subject; recovery queries reach the workers over the in-memory request
 * plane, which hands each one to the worker process (it answers from its true state). After each fault the
 * engine's pool stream replica must equal the exact model of the workers' live blocks: a sequence gap (messages
 * never sent), a worker restart with new publisher ids, and a nats-server kill and restart on the same port
 * (messages published meanwhile are lost; the plane reports Disconnected / Reconnected). Convergence times are
 * printed ("E2E ...").
 */
class NatsEngineFaultsE2ETest {
  private static final long WORKER_BASE = 8_000_000_000_000_000_001L;

  @TempDir
  Path dir;

  @BeforeAll
  static void peers() throws Exception {
    NatsServer.requireBinary();
    PythonWorker.assumePeers(false);
  }

  private static Runnable traffic(PythonWorker[] workers) {
    return () -> {
      for (PythonWorker w : workers) {
        try {
          w.events(1);
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
    };
  }

  private static PythonWorker worker(NatsServer server, long id) throws Exception {
    return PythonWorker.start(id, 2, "nats", "127.0.0.1", Integer.toString(server.port()), "dynamo", "backend",
        "generate");
  }

  @Test
  void convergesAfterAGapAWorkerRestartAndANatsServerRestart() throws Exception {
    try (NatsServer server = NatsServer.start(dir);
        NatsEventPlane plane = NatsEventPlane.open(NatsSettings.of(List.of(server.url()), NatsSettings.DEFAULT_AUTH)
            .withReconnectWait(Duration.ofMillis(50), Duration.ofMillis(400)));
        PlaneE2E e2e = new PlaneE2E(plane, false, 2)) {
      PythonWorker[] w = new PythonWorker[3];
      for (int i = 0; i < w.length; i++) {
        w[i] = worker(server, WORKER_BASE + i);
        e2e.add(w[i]);
      }
      for (PythonWorker x : w) {
        x.events(20);
      }
      e2e.awaitExact("nats: start", traffic(w));

      long gapsBefore = e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.SEQUENCE_GAP);
      w[0].skip(1, 5);
      w[0].events(3);
      e2e.awaitExact("nats: sequence gap (5 messages never sent)", traffic(w));
      assertThat(e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.SEQUENCE_GAP)).isGreaterThan(gapsBefore);

      long newBefore = e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.NEW_PUBLISHER);
      long planeNewBefore = plane.stats().newPublishers();
      w[1].kill();
      PythonWorker fresh = worker(server, w[1].workerId);
      e2e.replace(w[1], fresh);
      w[1] = fresh;
      fresh.events(10);
      e2e.awaitExact("nats: worker restart with new publisher ids", traffic(w));
      // both ranks of the new process are new publisher ids, reported by the plane and counted by the engine
      assertThat(plane.stats().newPublishers() - planeNewBefore).isEqualTo(2);
      assertThat(e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.NEW_PUBLISHER) - newBefore).isEqualTo(2);

      long reconnectsBefore = e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.RECONNECTED);
      server.kill();
      for (PythonWorker x : w) {
        x.events(4); // lost: no server
      }
      server.start();
      e2e.awaitExact("nats: nats-server killed and restarted", traffic(w));
      RelayEngineStats s = e2e.engine.stats();
      assertThat(s.eventPlaneFaults(EventPlaneFaultKind.RECONNECTED)).isGreaterThan(reconnectsBefore);
      assertThat(s.pools().get(0).recovery().suspectMarks()).isPositive();
      System.out.println("E2E nats: plane faults " + s.eventPlaneFaults() + ", recovery " + s.pools().get(0)
          .recovery());
    }
  }
}
