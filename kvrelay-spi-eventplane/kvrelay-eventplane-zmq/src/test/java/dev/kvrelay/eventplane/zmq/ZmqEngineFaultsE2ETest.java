package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.PlaneE2E;
import dev.kvrelay.engine.PythonWorker;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end through the engine on the ZMQ plane: 3 independent Python workers (Debian libzmq through python3-zmq,
 * python3-msgpack; {@code kv_worker.py}) × 2 data-parallel ranks publish kv-events, each rank with its own publisher
 * id and PUB socket; recovery queries reach the workers over the in-memory request plane, which hands each one to
 * the worker process (it answers from its true state). After each fault the engine's pool stream replica must equal
 * the exact model of the workers' live blocks: a sequence gap (messages never sent), a worker restart with new
 * publisher ids (kill -9, new process, discovery re-advertised), a publisher reconnect (PUB closed, events lost,
 * bound again on the same port: exactly one {@code Disconnected} and one {@code Reconnected}, in the plane's
 * {@link ZmqStats} and in the engine's fault counts). Broker mode ({@code DYN_ZMQ_BROKER_ENABLED}) reads the {@code zmq_broker}
 * EventChannel discovery advertises, through the module's jeromq XSUB/XPUB broker. Convergence times are printed
 * ("E2E ...").
 */
class ZmqEngineFaultsE2ETest {
  private static final long WORKER_BASE = 7_000_000_000_000_000_001L;

  @BeforeAll
  static void peers() throws Exception {
    PythonWorker.assumePeers(true);
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

  @Test
  void directModeConvergesAfterAGapAWorkerRestartAndAPublisherReconnect() throws Exception {
    try (ZmqEventPlane plane = ZmqEventPlane.open(ZmqSettings.direct(2));
        PlaneE2E e2e = new PlaneE2E(plane, true, 2)) {
      PythonWorker[] w = new PythonWorker[3];
      for (int i = 0; i < w.length; i++) {
        w[i] = PythonWorker.start(WORKER_BASE + i, 2, "zmq-direct");
        e2e.add(w[i]);
      }
      for (PythonWorker x : w) {
        x.events(20);
      }
      e2e.awaitExact("zmq direct: start", traffic(w));

      long gapsBefore = e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.SEQUENCE_GAP);
      w[0].skip(1, 5);
      w[0].events(3);
      e2e.awaitExact("zmq direct: sequence gap (5 messages never sent)", traffic(w));
      PeerRecorder.poll(() -> e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.SEQUENCE_GAP) > gapsBefore, 60,
          () -> "the engine counts the gap");

      long newBefore = e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.NEW_PUBLISHER);
      w[1].kill();
      PythonWorker fresh = PythonWorker.start(w[1].workerId, 2, "zmq-direct");
      e2e.replace(w[1], fresh);
      w[1] = fresh;
      fresh.events(10);
      // The plane connects to the fresh worker's endpoints only once discovery has told the engine about them; a PUB
      // drops what it sends before that (the tree dump still carries it). So the fresh worker sends one more event
      // every 50 ms until the plane has seen one of its new publishers (a stressed clean-clone run converged on the
      // dump alone, with no live message and so no NewPublisher).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.NEW_PUBLISHER) <= newBefore) {
        assertThat(System.nanoTime()).as("a live message from the fresh worker's new publishers").isLessThan(deadline);
        fresh.events(1);
        Thread.sleep(50);
      }
      e2e.awaitExact("zmq direct: worker restart with new publisher ids", traffic(w));

      // Earlier steps' link faults (the killed worker's endpoints) are settled: the baseline is stable.
      ZmqStats linksBefore = plane.stats();
      long engineDisconnects = e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.DISCONNECTED);
      long engineReconnects = e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.RECONNECTED);
      w[2].rebind(0, 4);
      PeerRecorder.poll(() -> plane.stats().reconnects() > linksBefore.reconnects(), 60,
          () -> "a Reconnected after the PUB was bound again; " + plane.stats());
      w[2].events(5);
      e2e.awaitExact("zmq direct: publisher reconnect (4 events while down)", traffic(w));
      ZmqStats links = plane.stats();
      assertThat(links.disconnects() - linksBefore.disconnects()).as("one PUB gone: exactly one Disconnected")
          .isEqualTo(1);
      assertThat(links.reconnects() - linksBefore.reconnects()).as("and back: exactly one Reconnected")
          .isEqualTo(1);
      assertThat(e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.DISCONNECTED) - engineDisconnects)
          .as("the engine received the one Disconnected").isEqualTo(1);
      assertThat(e2e.engine.stats().eventPlaneFaults(EventPlaneFaultKind.RECONNECTED) - engineReconnects)
          .as("the engine received the one Reconnected").isEqualTo(1);

      RelayEngineStats s = e2e.engine.stats();
      System.out.println("E2E zmq direct: plane faults " + s.eventPlaneFaults() + ", recovery " + s.pools().get(0)
          .recovery());
    }
  }

  @Test
  void brokerModeReadsTheZmqBrokerChannelsDiscoveryAdvertises() throws Exception {
    try (JeromqBroker broker = new JeromqBroker();
        EventPlane plane = new ZmqEventPlaneProvider().open(
            new EventPlaneSettings(Map.of(ZmqSettings.BROKER_ENABLED, "true")));
        PlaneE2E e2e = new PlaneE2E(plane, false, 2)) {
      assertThat(plane.connectsToChannels()).isTrue();
      e2e.broker(0x42, broker.xsub(), broker.xpub());
      PythonWorker[] w = new PythonWorker[3];
      for (int i = 0; i < w.length; i++) {
        w[i] = PythonWorker.start(WORKER_BASE + 10 + i, 2, "zmq-broker", broker.xsub(), "dynamo", "backend",
            "generate");
        e2e.add(w[i]);
      }
      for (PythonWorker x : w) {
        x.events(20);
      }
      e2e.awaitExact("zmq broker: start", traffic(w));
      w[2].skip(0, 3);
      w[2].events(2);
      e2e.awaitExact("zmq broker: sequence gap (3 messages never sent)", traffic(w));
      assertThat(e2e.engine.stats().channelErrors()).isZero();
      assertThat(e2e.engine.stats().pools().get(0).recovery().applied()).isPositive();
    }
  }
}
