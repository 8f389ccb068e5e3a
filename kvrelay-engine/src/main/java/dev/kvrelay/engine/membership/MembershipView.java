package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DynamoEndpointId;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Immutable and thread-safe: one membership projection of every watched endpoint, in endpoint order.
 *
 * @param dcId this relay's DC
 * @param endpoints serving endpoint → membership
 */
public record MembershipView(DcId dcId, SortedMap<DynamoEndpointId, EndpointMembership> endpoints) {

  /** Copies {@code endpoints} (unmodifiable). */
  public MembershipView {
    endpoints = Collections.unmodifiableSortedMap(new TreeMap<>(endpoints));
  }

  /** The empty view. */
  public static MembershipView empty(DcId dcId) {
    return new MembershipView(dcId, new TreeMap<>());
  }

  /** The membership of {@code endpoint}, if it has cards in scope. */
  public Optional<EndpointMembership> get(DynamoEndpointId endpoint) {
    return Optional.ofNullable(endpoints.get(endpoint));
  }

  /** The endpoints whose membership is materializable. */
  public SortedMap<DynamoEndpointId, EndpointMembership> materializable() {
    TreeMap<DynamoEndpointId, EndpointMembership> out = new TreeMap<>();
    for (Map.Entry<DynamoEndpointId, EndpointMembership> e : endpoints.entrySet()) {
      if (e.getValue().isMaterializable()) {
        out.put(e.getKey(), e.getValue());
      }
    }
    return Collections.unmodifiableSortedMap(out);
  }
}
