package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.DynamoEndpointId;
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
 * Thread-safe: a request plane inside one JVM (the {@code mem} backend) answering recovery queries from the
 * {@link Worker}s registered by instance id. Answers, timeouts and refusals complete on an internal daemon scheduler
 * thread, never on the caller's. Responses are passed as objects (the request-plane JSON codec is not
 * exercised here).
 */
public final class InMemoryRequestPlane implements RequestPlaneClient {
  /**
   * Thread-safe (implementations are called on the plane's scheduler thread): the worker side of one instance,
   * deciding what each recovery query gets. Plugin tests drive fake worker servers with the same replies.
   */
  public interface Worker {
    /** Records or answers one query addressed to {@code endpoint}. */
    Reply receive(DynamoEndpointId endpoint, WorkerKvQueryRequest request);

    /** Immutable and thread-safe: what the worker does with one query. */
    sealed interface Reply permits Answer, Silence, Refusal {}

    /**
     * Immutable and thread-safe: answer after a delay.
     *
     * @param response the first response item
     * @param delay how long after the query arrives
     */
    record Answer(WorkerKvQueryResponse response, Duration delay) implements Reply {}

    /** Immutable and thread-safe: never answer (the query times out). */
    record Silence() implements Reply {}

    /**
     * Immutable and thread-safe: refuse the request, as an overloaded worker does.
     *
     * @param message the refusal text, e.g. {@code Server overloaded: …}
     */
    record Refusal(String message) implements Reply {}
  }

  private final Map<Long, Worker> workers = new ConcurrentHashMap<>();
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
  public void register(long instanceId, Worker worker) {
    workers.put(instanceId, Objects.requireNonNull(worker, "worker"));
  }

  /** Stops serving instance {@code instanceId}: later queries fail as unreachable. */
  public void unregister(long instanceId) {
    workers.remove(instanceId);
  }

  @Override
  @SuppressWarnings("CollectionUndefinedEquality") // in-flight futures are tracked by identity, which is their equals
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
      // The dependent stage is not needed: the clean-up below cannot throw.
      CompletableFuture<?> unused = result.whenComplete((r, e) -> {
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
    Worker worker = workers.get(target.instanceId());
    if (worker == null) {
      result.completeExceptionally(new RequestPlaneException(RequestPlaneException.Kind.UNREACHABLE,
          "no worker instance " + Long.toUnsignedString(target.instanceId())));
      return;
    }
    Worker.Reply reply = worker.receive(target.queryEndpoint(request.workerId(), request.dpRank()), request);
    if (reply instanceof Worker.Answer a) {
      if (a.delay().isZero() || a.delay().isNegative()) {
        result.complete(a.response());
      } else {
        // The timer's future is not needed: completing the result cannot throw, and close() ends the scheduler.
        ScheduledFuture<?> unused =
            scheduler.schedule(() -> result.complete(a.response()), a.delay().toNanos(), TimeUnit.NANOSECONDS);
      }
    } else if (reply instanceof Worker.Refusal r) {
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
