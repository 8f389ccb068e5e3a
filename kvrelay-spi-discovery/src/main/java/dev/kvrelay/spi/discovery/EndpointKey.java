package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;

/**
 * Immutable and thread-safe: the id of an endpoint instance, path {@code {ns}/{comp}/{ep}/{iid_hex}}.
 *
 * @param endpoint the serving endpoint (no part contains {@code /})
 * @param instanceId the u64 instance id (= worker id); etcd lease ids use all 64 bits
 */
public record EndpointKey(DynamoEndpointId endpoint, long instanceId) implements DiscoveryKey {

  /** @throws IllegalArgumentException if an endpoint part contains {@code /} */
  public EndpointKey {
    Names.requirePathPart("namespace", endpoint.namespace());
    Names.requirePathPart("component", endpoint.component());
    Names.requirePathPart("endpoint", endpoint.endpoint());
  }

  @Override
  public DiscoveryKind kind() {
    return DiscoveryKind.ENDPOINT;
  }

  @Override
  public String path() {
    return endpoint.path() + "/" + Names.hex(instanceId);
  }

  @Override
  public String namespace() {
    return endpoint.namespace();
  }
}
