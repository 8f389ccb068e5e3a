package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the id of a model card, path {@code {ns}/{comp}/{ep}/{iid_hex}} for a base
 * card or {@code …/{iid_hex}/{model_suffix}} for a LoRA adapter card.
 *
 * @param endpoint the serving endpoint (no part contains {@code /})
 * @param instanceId the u64 instance id (= worker id)
 * @param suffix the adapter slug, or {@code null} for a base card
 */
public record ModelKey(DynamoEndpointId endpoint, long instanceId, @Nullable String suffix) implements DiscoveryKey {

  /** @throws IllegalArgumentException if an endpoint part or the suffix contains {@code /}, or the suffix is empty */
  public ModelKey {
    Names.requirePathPart("namespace", endpoint.namespace());
    Names.requirePathPart("component", endpoint.component());
    Names.requirePathPart("endpoint", endpoint.endpoint());
    if (suffix != null) {
      Names.requirePathPart("model suffix", suffix);
    }
  }

  /** The key of the instance that published this card. */
  public EndpointKey instanceKey() {
    return new EndpointKey(endpoint, instanceId);
  }

  @Override
  public DiscoveryKind kind() {
    return DiscoveryKind.MODEL;
  }

  @Override
  public String path() {
    String base = endpoint.path() + "/" + Names.hex(instanceId);
    return suffix == null ? base : base + "/" + suffix;
  }

  @Override
  public String namespace() {
    return endpoint.namespace();
  }
}
