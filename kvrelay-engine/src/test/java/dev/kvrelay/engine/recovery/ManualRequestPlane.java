package dev.kvrelay.engine.recovery;

import dev.kvrelay.engine.actor.ManualScheduler;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Not thread-safe: confined to the test thread. A deterministic request plane: {@link ScriptedWorker}s by
 * instance id, answers delivered on the manual scheduler; a silent worker is left to the recovery's own
 * attempt timer (this client never times out by itself).
 */
final class ManualRequestPlane implements RequestPlaneClient {
  private final ManualScheduler scheduler;
  private final Map<Long, ScriptedWorker> workers = new HashMap<>();
  int queries;

  ManualRequestPlane(ManualScheduler scheduler) {
    this.scheduler = scheduler;
  }

  void register(long instanceId, ScriptedWorker worker) {
    workers.put(instanceId, worker);
  }

  @Override
  public CompletionStage<WorkerKvQueryResponse> query(
      RecoveryTarget target, WorkerKvQueryRequest request, Duration timeout) {
    queries++;
    CompletableFuture<WorkerKvQueryResponse> f = new CompletableFuture<>();
    ScriptedWorker w = workers.get(target.instanceId());
    if (w == null) {
      f.completeExceptionally(new RequestPlaneException(RequestPlaneException.Kind.UNREACHABLE, "no worker"));
      return f;
    }
    ScriptedWorker.Reply reply = w.receive(target.queryEndpoint(request.workerId(), request.dpRank()), request);
    if (reply instanceof ScriptedWorker.Answer a) {
      scheduler.schedule(() -> f.complete(a.response()), a.delay().toNanos());
    } else if (reply instanceof ScriptedWorker.Refusal r) {
      scheduler.schedule(() -> f.completeExceptionally(
          new RequestPlaneException(RequestPlaneException.Kind.REJECTED, r.message())), 0);
    }
    return f;
  }

  @Override
  public void close() {}
}
