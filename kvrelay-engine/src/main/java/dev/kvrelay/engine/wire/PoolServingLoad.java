package dev.kvrelay.engine.wire;

import dev.kvrelay.api.ProducerIdentity;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: one pool of a serving-load window (wire {@code PoolServingLoad}, wan-grpc.md
 * §1.7 and §4.2).
 *
 * @param producer the pool's producer identity (required)
 * @param load the pool's router-scheduler view: no request stats; the two scheduler gauges set iff COMPLETE;
 *     no model token field
 * @param deployment the pool's deployment facts (required, may be {@link PoolDeploymentStatus#EMPTY})
 */
public record PoolServingLoad(ProducerIdentity producer, ServingLoadView load, PoolDeploymentStatus deployment) {

  /**
   * @throws IllegalArgumentException if {@code load} breaks the pool presence rules of §1.7
   */
  public PoolServingLoad {
    Objects.requireNonNull(producer, "producer");
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(deployment, "deployment");
    if (load.requests().isPresent()) {
      throw new IllegalArgumentException("a pool view carries no request stats");
    }
    TokenLoadStats t = load.tokens();
    boolean complete = load.complete();
    if (t.activePrefillTokens().isPresent() != complete || t.activeDecodeBlocks().isPresent() != complete) {
      throw new IllegalArgumentException(
          "pool active_prefill_tokens / active_decode_blocks must be set iff COMPLETE, status " + load.status());
    }
    if (t.awaitingFirstTokenInputTokens().isPresent() || t.inflightInputTokens().isPresent()
        || t.inputTokensTotal().isPresent() || t.outputTokensTotal().isPresent()) {
      throw new IllegalArgumentException("a pool view never sets model token fields");
    }
  }
}
