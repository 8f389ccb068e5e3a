package dev.kvrelay.requestplane.tcp;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneContract;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.TransportAddress;
import dev.kvrelay.spi.eventplane.WorkerKvQueryCodec;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SPI's request-plane contract against {@link TcpRequestPlaneClient}, with the independent Python worker
 * ({@code tcp_worker.py}) in bridge mode as every worker instance: it decodes each request frame, asks this
 * test (stdout {@code QUERY}) what the {@link ScriptedWorker} of the addressed instance replies, and then ACKs,
 * refuses, answers after the scripted delay, or stays silent on the call-home socket.
 */
class TcpRequestPlaneContractTest extends RequestPlaneContract {
  static final DynamoEndpointId GENERATE = new DynamoEndpointId("dynamo", "backend", "generate");

  @TempDir Path dir;
  private @Nullable PythonPeer peer;
  private int port;
  private final Map<Long, ScriptedWorker> workers = new ConcurrentHashMap<>();

  @AfterEach
  void stopPeer() throws Exception {
    if (peer != null) {
      peer.close();
    }
  }

  @Override
  protected RequestPlaneClient openClient() throws Exception {
    return TcpRequestPlaneClient.open(TcpRequestPlaneConfig.loopback());
  }

  @Override
  protected RecoveryTarget startWorker(RequestPlaneClient client, long instanceId, ScriptedWorker worker) throws Exception {
    PythonPeer p = peer();
    workers.put(instanceId, worker);
    return new RecoveryTarget(GENERATE, instanceId,
        TransportAddress.tcp("127.0.0.1:" + port + "/" + TcpEndpointPaths.instancePath(GENERATE, instanceId)));
  }

  @Override
  protected RecoveryTarget unservedTarget(RequestPlaneClient client) throws Exception {
    int free;
    try (ServerSocket s = new ServerSocket(0)) {
      free = s.getLocalPort();
    }
    return new RecoveryTarget(GENERATE, 123_456_789, TransportAddress.tcp("127.0.0.1:" + free + "/generate"));
  }

  private PythonPeer peer() throws Exception {
    if (peer == null) {
      PythonPeer p = PythonPeer.start("tcp_worker.py", dir);
      port = Integer.parseInt(p.await("PORT ", Duration.ofSeconds(20)).substring(5).trim());
      p.onLine(line -> bridge(p, line));
      int mark = p.mark();
      p.send("MODE bridge");
      p.await(mark, l -> l.equals("MODE-OK bridge"), Duration.ofSeconds(20), "MODE-OK");
      peer = p;
    }
    return peer;
  }

  /** Answers one {@code QUERY <n> <path> <json>} line from the scripted worker of the addressed instance. */
  private void bridge(PythonPeer p, String line) {
    if (!line.startsWith("QUERY ")) {
      return;
    }
    String[] parts = line.split(" ", 4);
    String n = parts[1];
    try {
      String[] seg = parts[2].split("/");
      long instance = Long.parseUnsignedLong(seg[0], 16);
      DynamoEndpointId endpoint = new DynamoEndpointId(TcpEndpointPaths.unescapeSegment(seg[1]),
          TcpEndpointPaths.unescapeSegment(seg[2]), TcpEndpointPaths.unescapeSegment(seg[3]));
      WorkerKvQueryRequest request = WorkerKvQueryCodec.decodeRequest(parts[3]);
      ScriptedWorker w = workers.get(instance);
      ScriptedWorker.Reply reply = w == null ? new ScriptedWorker.Refusal("Server unavailable: unknown endpoint " + parts[2])
          : w.receive(endpoint, request);
      if (reply instanceof ScriptedWorker.Answer a) {
        p.send("REPLY " + n + " ANSWER " + a.delay().toMillis() + " " + WorkerKvQueryCodec.encodeResponse(a.response()));
      } else if (reply instanceof ScriptedWorker.Refusal r) {
        p.send("REPLY " + n + " REFUSE " + r.message());
      } else {
        p.send("REPLY " + n + " SILENCE");
      }
    } catch (Exception e) {
      try {
        p.send("REPLY " + n + " REFUSE bridge failure: " + e);
      } catch (Exception ignored) {
        // the peer is gone
      }
    }
  }
}
