package dev.kvrelay.engine.wire;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * Immutable and thread-safe: the token load of a serving-load view (wire {@code TokenLoadStats},
 * wan-grpc.md §1.7). Every value is an unsigned u64 carried in a {@code long}; every field is proto3
 * {@code optional}.
 *
 * <p>Presence (checked by {@link PoolServingLoad} and {@link ModelServingLoad}): pools set the two
 * scheduler gauges iff COMPLETE and nothing else; models set the two input-token gauges iff COMPLETE, always
 * set the two totals and never set the scheduler gauges.
 *
 * @param activePrefillTokens pools: Σ active prefill tokens, iff COMPLETE; models: never
 * @param activeDecodeBlocks pools: Σ active decode blocks, iff COMPLETE; models: never
 * @param awaitingFirstTokenInputTokens models: input tokens of requests awaiting their first token, iff
 *     COMPLETE; pools: never
 * @param inflightInputTokens models: input tokens in flight, iff COMPLETE; pools: never
 * @param inputTokensTotal models: Relay-lifetime cumulative input tokens, always; pools: never
 * @param outputTokensTotal models: Relay-lifetime cumulative output tokens, always; pools: never
 */
public record TokenLoadStats(
    OptionalLong activePrefillTokens,
    OptionalLong activeDecodeBlocks,
    OptionalLong awaitingFirstTokenInputTokens,
    OptionalLong inflightInputTokens,
    OptionalLong inputTokensTotal,
    OptionalLong outputTokensTotal) {

  /** Checks for {@code null}. */
  public TokenLoadStats {
    Objects.requireNonNull(activePrefillTokens, "activePrefillTokens");
    Objects.requireNonNull(activeDecodeBlocks, "activeDecodeBlocks");
    Objects.requireNonNull(awaitingFirstTokenInputTokens, "awaitingFirstTokenInputTokens");
    Objects.requireNonNull(inflightInputTokens, "inflightInputTokens");
    Objects.requireNonNull(inputTokensTotal, "inputTokensTotal");
    Objects.requireNonNull(outputTokensTotal, "outputTokensTotal");
  }

  /** A pool's token stats: only the two scheduler gauges may be set. */
  public static TokenLoadStats forPool(OptionalLong activePrefillTokens, OptionalLong activeDecodeBlocks) {
    return new TokenLoadStats(activePrefillTokens, activeDecodeBlocks, OptionalLong.empty(), OptionalLong.empty(),
        OptionalLong.empty(), OptionalLong.empty());
  }

  /** A model's token stats: the two totals are always set, the scheduler gauges never. */
  public static TokenLoadStats forModel(
      OptionalLong awaitingFirstTokenInputTokens,
      OptionalLong inflightInputTokens,
      long inputTokensTotal,
      long outputTokensTotal) {
    return new TokenLoadStats(OptionalLong.empty(), OptionalLong.empty(), awaitingFirstTokenInputTokens,
        inflightInputTokens, OptionalLong.of(inputTokensTotal), OptionalLong.of(outputTokensTotal));
  }
}
