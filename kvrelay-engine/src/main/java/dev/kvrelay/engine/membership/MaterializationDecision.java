package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DynamoEndpointId;

/**
 * Immutable and thread-safe: whether an endpoint should run a pool now ({@code desired_actor_binding},
 * {@code producer.md} §2.4): a {@link Materialize} with the desired binding, or {@link Blocked} with the
 * first failed condition.
 */
public sealed interface MaterializationDecision
    permits MaterializationDecision.Materialize, MaterializationDecision.Blocked {

  /**
   * Immutable and thread-safe: the desired actor binding {@code {domain, kv_state_endpoint}}.
   *
   * @param domain the endpoint's indexer domain
   * @param kvStateEndpoint the resolved kv-state endpoint
   */
  record Materialize(EndpointDomain domain, DynamoEndpointId kvStateEndpoint) implements MaterializationDecision {}

  /**
   * Immutable and thread-safe: no binding.
   *
   * @param reason the first condition that failed
   */
  record Blocked(BlockReason reason) implements MaterializationDecision {}

  /** Immutable and thread-safe: why there is no desired binding, in check order. */
  enum BlockReason {
    /** Condition 1: no domain, no registration, or a pool-blocking conflict. */
    NOT_MATERIALIZABLE,
    /** The KV-source view does not yet reflect the membership's runtime configs (start deferred). */
    SOURCE_BINDING_PENDING,
    /** Condition 2: the runtime configs resolve more than one kv-state endpoint. */
    KV_STATE_ENDPOINT_AMBIGUOUS,
    /** Condition 3: no expected (worker, dp_rank) has an active KV source. */
    NO_ACTIVE_SOURCE
  }

  /** Decides conditions 1–3 of §2.4, with the pending check between 1 and 2. */
  public static MaterializationDecision decide(EndpointMembership membership, KvSourceView view) {
    EndpointDomain domain = membership.domain();
    if (!membership.isMaterializable() || domain == null) {
      return new Blocked(BlockReason.NOT_MATERIALIZABLE);
    }
    if (view.isPendingFor(membership)) {
      return new Blocked(BlockReason.SOURCE_BINDING_PENDING);
    }
    if (!(view.kvState() instanceof KvStateResolution.Resolved)) {
      return new Blocked(BlockReason.KV_STATE_ENDPOINT_AMBIGUOUS);
    }
    if (!view.hasActiveSource()) {
      return new Blocked(BlockReason.NO_ACTIVE_SOURCE);
    }
    return new Materialize(domain, ((KvStateResolution.Resolved) view.kvState()).endpoint());
  }
}
