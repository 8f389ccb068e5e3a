package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.kvrelay.api.DynamoEndpointId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Not thread-safe: one instance per test method (JUnit's default). The contract every
 * {@link RequestPlaneClient} must meet; shipped in this module's test-jar so request-plane plugin tests
 * subclass it and supply a client and fake worker instances driven by {@link ScriptedWorker}.
 *
 * <p>Covered: every response variant arrives intact; the worker receives the request's fields at the
 * per-rank query endpoint (producer.md §3.6 decision (b)); silence times out with
 * {@link RequestPlaneException.Kind#TIMEOUT} no earlier than the timeout; an unserved target and a refusing
 * worker fail typed; concurrent queries each get their own answer; {@code close()} fails queries in flight.
 */
public abstract class RequestPlaneContract {

  /** A fresh client; the contract closes it after the test. */
  protected abstract RequestPlaneClient openClient() throws Exception;

  /**
   * Starts a worker instance {@code instanceId} serving {@code worker} on the endpoint
   * {@code dynamo/backend/generate} and returns its recovery target.
   */
  protected abstract RecoveryTarget startWorker(RequestPlaneClient client, long instanceId, ScriptedWorker worker)
      throws Exception;

  /** A target no worker serves. */
  protected abstract RecoveryTarget unservedTarget(RequestPlaneClient client) throws Exception;

  /** Extra time allowed beyond a timeout or a scripted delay. */
  protected Duration slack() {
    return Duration.ofSeconds(5);
  }

  static final DynamoEndpointId ENDPOINT = new DynamoEndpointId("dynamo", "backend", "generate");

  private @Nullable RequestPlaneClient client;

  @AfterEach
  void closeClient() {
    if (client != null) {
      client.close();
    }
  }

  private RequestPlaneClient client() throws Exception {
    if (client == null) {
      client = openClient();
    }
    return client;
  }

  private WorkerKvQueryResponse answer(CompletionStage<WorkerKvQueryResponse> stage, Duration within) throws Exception {
    return stage.toCompletableFuture().get(within.plus(slack()).toMillis(), TimeUnit.MILLISECONDS);
  }

  private RequestPlaneException failure(CompletionStage<WorkerKvQueryResponse> stage, Duration within) throws Exception {
    try {
      WorkerKvQueryResponse r = answer(stage, within);
      return fail("expected a RequestPlaneException, got " + r);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(RequestPlaneException.class);
      return (RequestPlaneException) e.getCause();
    }
  }

  static RouterEvent stored(long worker, int rank, long id, long parent, long tokens) {
    return new RouterEvent(worker, StorageTier.DEVICE, ResidencyDomain.WORKER, id, rank,
        new KvEventData.Stored(OptionalLong.of(parent), OptionalLong.empty(), List.of(StoredBlock.of(id, tokens))));
  }

  @Test
  public void everyResponseVariantArrivesIntact() throws Exception {
    long w = Long.parseUnsignedLong("7587891234567890123");
    List<WorkerKvQueryResponse> variants = List.of(
        new WorkerKvQueryResponse.Events(List.of(stored(w, 0, 43, 1, 2), stored(w, 0, 44, 43, -3L),
            new RouterEvent(w, StorageTier.DEVICE, ResidencyDomain.ABSENT, 45, 0, KvEventData.Removed.of(43, -1L))), 45),
        new WorkerKvQueryResponse.TreeDump(List.of(stored(w, 0, 0, 5, 6)), 1_000, "all"),
        new WorkerKvQueryResponse.TreeDumpFailed(7, "tree dump already running"),
        new WorkerKvQueryResponse.TooNew(OptionalLong.of(90), OptionalLong.empty(), 80),
        new WorkerKvQueryResponse.InvalidRange(OptionalLong.of(9), OptionalLong.of(3)),
        new WorkerKvQueryResponse.Error("indexer not ready"),
        new WorkerKvQueryResponse.Events(List.of(), -1L));
    ScriptedWorker worker = new ScriptedWorker();
    variants.forEach(worker::thenAnswer);
    RecoveryTarget target = startWorker(client(), w, worker);
    for (WorkerKvQueryResponse expected : variants) {
      WorkerKvQueryResponse got = answer(
          client().query(target, WorkerKvQueryRequest.incremental(w, 0, 43), Duration.ofSeconds(10)), Duration.ZERO);
      assertThat(got).isEqualTo(expected);
    }
  }

  @Test
  public void workerReceivesTheRequestAtThePerRankEndpoint() throws Exception {
    long instance = 4_242;
    ScriptedWorker worker = new ScriptedWorker().otherwiseAnswer(r -> new WorkerKvQueryResponse.Events(List.of(), 0));
    RecoveryTarget target = startWorker(client(), instance, worker);
    WorkerKvQueryRequest full = WorkerKvQueryRequest.fullRestore(instance, 0);
    WorkerKvQueryRequest incremental = WorkerKvQueryRequest.incremental(99, 3, 43);
    WorkerKvQueryRequest ranged = new WorkerKvQueryRequest(instance, -1, OptionalLong.of(-2L), OptionalLong.of(-1L),
        false, WorkerKvQueryRequest.Kind.RECOVERY);
    for (WorkerKvQueryRequest req : List.of(full, incremental, ranged)) {
      answer(client().query(target, req, Duration.ofSeconds(10)), Duration.ZERO);
    }
    List<ScriptedWorker.ReceivedQuery> received = worker.received();
    assertThat(received).extracting(ScriptedWorker.ReceivedQuery::request).containsExactly(full, incremental, ranged);
    // producer.md §3.6 decision (b): per-rank endpoint; "_worker{id}" when the worker is not the instance
    assertThat(received).extracting(q -> q.endpoint().endpoint()).containsExactly(
        "worker_kv_indexer_query_dp0", "worker_kv_indexer_query_dp3_worker99",
        "worker_kv_indexer_query_dp4294967295");
    assertThat(received).extracting(q -> q.endpoint().namespace() + "/" + q.endpoint().component())
        .containsOnly("dynamo/backend");
  }

  @Test
  public void silenceTimesOutNoEarlierThanTheTimeout() throws Exception {
    ScriptedWorker worker = new ScriptedWorker().thenNoAnswer();
    RecoveryTarget target = startWorker(client(), 1, worker);
    Duration timeout = Duration.ofMillis(300);
    long start = System.nanoTime();
    RequestPlaneException e = failure(client().query(target, WorkerKvQueryRequest.fullRestore(1, 0), timeout), timeout);
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.TIMEOUT);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(timeout.toNanos());
  }

  @Test
  public void unservedTargetFailsTyped() throws Exception {
    Duration timeout = Duration.ofSeconds(2);
    RequestPlaneException e = failure(
        client().query(unservedTarget(client()), WorkerKvQueryRequest.fullRestore(1, 0), timeout), timeout);
    assertThat(e.kind()).isIn(RequestPlaneException.Kind.UNREACHABLE, RequestPlaneException.Kind.TIMEOUT);
  }

  @Test
  public void refusalFailsAsRejected() throws Exception {
    ScriptedWorker worker = new ScriptedWorker().thenRefuse("Server overloaded: too many requests");
    RecoveryTarget target = startWorker(client(), 2, worker);
    RequestPlaneException e = failure(
        client().query(target, WorkerKvQueryRequest.fullRestore(2, 0), Duration.ofSeconds(10)), Duration.ZERO);
    assertThat(e.kind()).isEqualTo(RequestPlaneException.Kind.REJECTED);
  }

  @Test
  public void concurrentQueriesGetTheirOwnAnswers() throws Exception {
    ScriptedWorker worker = new ScriptedWorker().otherwiseAnswer(
        r -> new WorkerKvQueryResponse.Events(List.of(), r.startEventId().orElse(0) * 10 + r.dpRank()));
    RecoveryTarget target = startWorker(client(), 3, worker);
    List<CompletableFuture<WorkerKvQueryResponse>> futures = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      futures.add(client().query(target, WorkerKvQueryRequest.incremental(3, i % 4, i), Duration.ofSeconds(10))
          .toCompletableFuture());
    }
    for (int i = 0; i < 32; i++) {
      assertThat(answer(futures.get(i), Duration.ZERO)).isEqualTo(new WorkerKvQueryResponse.Events(List.of(), i * 10L + i % 4));
    }
  }

  @Test
  public void delayedAnswersArriveAfterTheirDelay() throws Exception {
    ScriptedWorker worker = new ScriptedWorker()
        .thenAnswerAfter(Duration.ofMillis(200), new WorkerKvQueryResponse.Error("slow"))
        .thenAnswer(new WorkerKvQueryResponse.Error("fast"));
    RecoveryTarget target = startWorker(client(), 4, worker);
    CompletableFuture<WorkerKvQueryResponse> slow =
        client().query(target, WorkerKvQueryRequest.fullRestore(4, 0), Duration.ofSeconds(10)).toCompletableFuture();
    // The script answers in arrival order: the second query is sent only once the first has arrived (on a real
    // transport two queries may travel on two connections and overtake each other; the answer order is the point).
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (worker.received().isEmpty()) {
      assertThat(System.nanoTime()).as("the first query reaches the worker").isLessThan(deadline);
      Thread.sleep(1);
    }
    assertThat(worker.received()).hasSize(1);
    CompletableFuture<WorkerKvQueryResponse> fast =
        client().query(target, WorkerKvQueryRequest.fullRestore(4, 1), Duration.ofSeconds(10)).toCompletableFuture();
    assertThat(answer(fast, Duration.ZERO)).isEqualTo(new WorkerKvQueryResponse.Error("fast"));
    assertThat(answer(slow, Duration.ofMillis(200))).isEqualTo(new WorkerKvQueryResponse.Error("slow"));
  }

  @Test
  public void closeFailsQueriesInFlightAndLater() throws Exception {
    ScriptedWorker worker = new ScriptedWorker().thenNoAnswer();
    RecoveryTarget target = startWorker(client(), 5, worker);
    CompletionStage<WorkerKvQueryResponse> pending =
        client().query(target, WorkerKvQueryRequest.fullRestore(5, 0), Duration.ofSeconds(30));
    client().close();
    assertThat(failure(pending, Duration.ZERO).kind()).isEqualTo(RequestPlaneException.Kind.CLOSED);
    assertThat(failure(client().query(target, WorkerKvQueryRequest.fullRestore(5, 0), Duration.ofSeconds(30)),
        Duration.ZERO).kind()).isEqualTo(RequestPlaneException.Kind.CLOSED);
    client().close(); // idempotent
  }
}
