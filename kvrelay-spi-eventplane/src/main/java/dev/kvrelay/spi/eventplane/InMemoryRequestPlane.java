package dev.kvrelay.spi.eventplane;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe: a request plane inside one JVM answering recovery queries from {@link ScriptedWorker}s
 * registered by instance id. Answers, timeouts and refusals complete on an internal daemon scheduler
 * thread, never on the caller's. Responses are passed as objects (the request-plane JSON codec is not
 * exercised here).
 */
public final class InMemoryRequestPlane implements RequestPlaneClient {
  private final Map<Long, ScriptedWorker> workers = new ConcurrentHashMap<>();
  private final Set<CompletableFuture<WorkerKvQueryResponse>> inFlight = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "kvrelay-mem-request-plane");
    t.setDaemon(true);
    return t;
  });
  private volatile boolean closed;

  /** An empty request plane. */
  public InMemoryRequestPlane() {}

  /** Serves queries addressed to instance {@code instanceId} with {@code worker} (replacing any previous one). */
  public void register(long instanceId, ScriptedWorker worker) {
    workers.put(instanceId, Objects.requireNonNull(worker, "worker"));
  }

  /** Stops serving instance {@code instanceId}: later queries fail as unreachable. */
  public void unregister(long instanceId) {
    workers.remove(instanceId);
  }

  @Override
  public CompletionStage<WorkerKvQueryResponse> query(
      RecoveryTarget target, WorkerKvQueryRequest request, Duration timeout) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(timeout, "timeout");
    CompletableFuture<WorkerKvQueryResponse> result = new CompletableFuture<>();
    if (closed) {
      result.completeExceptionally(new RequestPlaneException(RequestPlaneException.Kind.CLOSED, "request plane is closed"));
      return result;
    }
    inFlight.add(result);
    try {
      scheduler.execute(() -> dispatch(target, request, result));
      ScheduledFuture<?> timer = scheduler.schedule(
          () -> result.completeExceptionally(new RequestPlaneException(RequestPlaneException.Kind.TIMEOUT,
              "no answer from " + target + " within " + timeout)),
          Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
      result.whenComplete((r, e) -> {
        inFlight.remove(result);
        timer.cancel(false);
      });
    } catch (RejectedExecutionException e) {
      inFlight.remove(result);
      result.completeExceptionally(new RequestPlaneException(RequestPlaneException.Kind.CLOSED, "request plane is closed"));
    }
    return result;
  }

  private void dispatch(RecoveryTarget target, WorkerKvQueryRequest request, CompletableFuture<WorkerKvQueryResponse> result) {
    ScriptedWorker worker = workers.get(target.instanceId());
    if (worker == null) {
      result.completeExceptionally(new RequestPlaneException(RequestPlaneException.Kind.UNREACHABLE,
          "no worker instance " + Long.toUnsignedString(target.instanceId())));
      return;
    }
    ScriptedWorker.Reply reply = worker.receive(target.queryEndpoint(request.workerId(), request.dpRank()), request);
    if (reply instanceof ScriptedWorker.Answer a) {
      if (a.delay().isZero() || a.delay().isNegative()) {
        result.complete(a.response());
      } else {
        scheduler.schedule(() -> result.complete(a.response()), a.delay().toNanos(), TimeUnit.NANOSECONDS);
      }
    } else if (reply instanceof ScriptedWorker.Refusal r) {
      result.completeExceptionally(new RequestPlaneException(RequestPlaneException.Kind.REJECTED, r.message()));
    }
    // Silence: only the timeout completes the query.
  }

  @Override
  public void close() {
    closed = true;
    for (CompletableFuture<WorkerKvQueryResponse> f : inFlight) {
      f.completeExceptionally(new RequestPlaneException(RequestPlaneException.Kind.CLOSED, "request plane closed"));
    }
    scheduler.shutdownNow();
  }
}
