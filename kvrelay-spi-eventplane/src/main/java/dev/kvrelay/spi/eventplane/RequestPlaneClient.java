package dev.kvrelay.spi.eventplane;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Thread-safe: sends worker KV queries (recovery, runtime-inputs.md §6) over the request plane to the
 * query endpoint {@link RecoveryTarget#queryEndpoint} of an exact worker instance.
 */
public interface RequestPlaneClient extends AutoCloseable {

  /**
   * Sends {@code request} to {@code target} and completes with the first response item. Never throws: a
   * query that gets no answer completes exceptionally with a {@link RequestPlaneException} (kind
   * {@link RequestPlaneException.Kind#TIMEOUT} once {@code timeout} has passed). Completion may happen on
   * any thread.
   */
  CompletionStage<WorkerKvQueryResponse> query(RecoveryTarget target, WorkerKvQueryRequest request, Duration timeout);

  /** Fails queries in flight with {@link RequestPlaneException.Kind#CLOSED}. Idempotent. */
  @Override
  void close();
}
