package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DynamoEndpointId;
import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Immutable and thread-safe: the kv-state endpoint an endpoint's runtime configs resolve to ({@code
 * effective_kv_state_endpoint}, §2.4 condition 2).
 */
sealed interface KvStateResolution permits KvStateResolution.Resolved, KvStateResolution.Ambiguous {

  /**
   * Immutable and thread-safe: exactly one kv-state endpoint.
   *
   * @param endpoint the kv-state endpoint
   */
  record Resolved(DynamoEndpointId endpoint) implements KvStateResolution {}

  /**
   * Immutable and thread-safe: more than one distinct kv-state endpoint.
   *
   * @param candidates the distinct endpoints, sorted
   */
  record Ambiguous(SortedSet<DynamoEndpointId> candidates) implements KvStateResolution {
    /** Copies the candidates. */
    public Ambiguous {
      candidates = Collections.unmodifiableSortedSet(new TreeSet<>(candidates));
    }
  }
}
