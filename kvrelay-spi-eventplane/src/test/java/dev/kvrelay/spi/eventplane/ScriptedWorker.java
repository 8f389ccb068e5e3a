package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.DynamoEndpointId;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Thread-safe (all methods synchronized): a fake worker KV indexer for an {@link InMemoryRequestPlane} (test-jar
 * only: it is a test double, not a backend). It answers queries from a script: queued one-shot replies first, then a fallback function; and it
 * records every query it received with the endpoint it was addressed to. Request-plane plugin tests
 * drive their fake worker servers with it ({@link #receive}).
 */
public final class ScriptedWorker implements InMemoryRequestPlane.Worker {

  /**
   * Immutable and thread-safe: one query the worker received.
   *
   * @param endpoint the query endpoint it was addressed to
   * @param request the request
   */
  public record ReceivedQuery(DynamoEndpointId endpoint, WorkerKvQueryRequest request) {}

  private final ArrayDeque<Reply> script = new ArrayDeque<>();
  private final List<ReceivedQuery> received = new ArrayList<>();
  private Function<WorkerKvQueryRequest, WorkerKvQueryResponse> fallback =
      r -> new WorkerKvQueryResponse.Error("no scripted answer");

  /** A worker with an empty script that answers {@code Error("no scripted answer")}. */
  public ScriptedWorker() {}

  /** Queues an immediate answer to the next unscripted query. */
  public synchronized ScriptedWorker thenAnswer(WorkerKvQueryResponse response) {
    return thenAnswerAfter(Duration.ZERO, response);
  }

  /** Queues an answer sent {@code delay} after the query arrives. */
  public synchronized ScriptedWorker thenAnswerAfter(Duration delay, WorkerKvQueryResponse response) {
    script.add(new Answer(Objects.requireNonNull(response, "response"), Objects.requireNonNull(delay, "delay")));
    return this;
  }

  /** Queues a query that is never answered. */
  public synchronized ScriptedWorker thenNoAnswer() {
    script.add(new Silence());
    return this;
  }

  /** Queues a refusal ({@code Server overloaded: …}). */
  public synchronized ScriptedWorker thenRefuse(String message) {
    script.add(new Refusal(Objects.requireNonNull(message, "message")));
    return this;
  }

  /** Answers every query the queue does not cover with {@code answer}. */
  public synchronized ScriptedWorker otherwiseAnswer(Function<WorkerKvQueryRequest, WorkerKvQueryResponse> answer) {
    this.fallback = Objects.requireNonNull(answer, "answer");
    return this;
  }

  /** The queries received so far, in arrival order. */
  public synchronized List<ReceivedQuery> received() {
    return List.copyOf(received);
  }

  /**
   * Records a query addressed to {@code endpoint} and returns the scripted reply. Called by the in-memory
   * request plane, and by the fake worker servers of request-plane plugin tests.
   */
  @Override
  public synchronized Reply receive(DynamoEndpointId endpoint, WorkerKvQueryRequest request) {
    received.add(new ReceivedQuery(endpoint, request));
    Reply next = script.poll();
    if (next != null) {
      return next;
    }
    return new Answer(fallback.apply(request), Duration.ZERO);
  }
}
