package dev.kvrelay.engine.wire;

import dev.kvrelay.api.WireText;
import java.util.Objects;

/**
 * Immutable and thread-safe: one model of a serving-load window, keyed by {@code (namespace,
 * canonical_model_id)} (wire {@code ModelServingLoad}, wan-grpc.md §1.7 and §4.2).
 *
 * <p>Checked rules: valid text; request stats present (their gauges iff COMPLETE, checked by {@link
 * ServingLoadView}); token input/output totals always set, the two input-token gauges iff COMPLETE, the
 * scheduler gauges never; the status agrees with the frontend counts (COMPLETE needs {@code expected > 0}
 * and {@code observed == expected}, DEGRADED needs {@code observed > 0}, UNAVAILABLE needs {@code observed
 * == 0}, §4.2).
 *
 * @param namespace the Dynamo namespace of the serving endpoints (valid text)
 * @param canonicalModelId the canonical model id (valid text)
 * @param load the model view
 * @param deployment the model's frontends and serving pools
 */
public record ModelServingLoad(
    String namespace, String canonicalModelId, ServingLoadView load, ModelDeploymentStatus deployment) {

  /**
   * @throws IllegalArgumentException if a text is invalid or a presence or status rule is broken
   */
  public ModelServingLoad {
    WireText.require("namespace", namespace);
    WireText.require("canonical_model_id", canonicalModelId);
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(deployment, "deployment");
    if (load.requests().isEmpty()) {
      throw new IllegalArgumentException("a model view requires request stats");
    }
    TokenLoadStats t = load.tokens();
    boolean complete = load.complete();
    if (t.activePrefillTokens().isPresent() || t.activeDecodeBlocks().isPresent()) {
      throw new IllegalArgumentException("a model view never sets active_prefill_tokens / active_decode_blocks");
    }
    if (t.awaitingFirstTokenInputTokens().isPresent() != complete || t.inflightInputTokens().isPresent() != complete) {
      throw new IllegalArgumentException("model awaiting_first_token_input_tokens / inflight_input_tokens must be"
          + " set iff COMPLETE, status " + load.status());
    }
    if (t.inputTokensTotal().isEmpty() || t.outputTokensTotal().isEmpty()) {
      throw new IllegalArgumentException("model input_tokens_total / output_tokens_total are always set");
    }
    long expected = deployment.expectedFrontends();
    long observed = deployment.observedFrontends();
    boolean consistent = switch (load.status()) {
      case COMPLETE -> expected != 0 && observed == expected;
      case DEGRADED -> observed != 0;
      case UNAVAILABLE -> observed == 0;
    };
    if (!consistent) {
      throw new IllegalArgumentException("model status " + load.status() + " contradicts expected_frontends "
          + Long.toUnsignedString(expected) + ", observed_frontends " + Long.toUnsignedString(observed));
    }
  }
}
