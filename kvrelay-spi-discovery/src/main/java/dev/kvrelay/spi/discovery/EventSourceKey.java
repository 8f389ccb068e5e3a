package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.EventSegments;

/**
 * Immutable and thread-safe: the id of a typed KV event source advertisement, path {@code {scope path}/topic/{topic}/{id_hex}} with
 * percent-encoded segments.
 *
 * @param scope the exact scope the publisher registered under
 * @param topic the topic, e.g. {@code kv-events} (non-empty)
 * @param publisherId the publisher id (random, masked to 53 bits; one per publisher incarnation)
 */
public record EventSourceKey(EventScope scope, String topic, long publisherId) implements DiscoveryKey {

  /** @throws IllegalArgumentException if the topic is empty or not well-formed */
  public EventSourceKey {
    Names.require("topic", topic);
  }

  @Override
  public DiscoveryKind kind() {
    return DiscoveryKind.EVENT_SOURCE;
  }

  @Override
  public String path() {
    return scope.path() + "/topic/" + EventSegments.encode(topic) + "/" + Names.hex(publisherId);
  }

  @Override
  public String namespace() {
    return scope.namespace();
  }
}
