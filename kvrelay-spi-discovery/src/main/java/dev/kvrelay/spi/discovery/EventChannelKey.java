package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.EventSegments;

/**
 * Immutable and thread-safe: the id of where to connect for one event publisher, path {@code {scope path}/topic/{topic}/{id_hex}} with
 * percent-encoded segments.
 *
 * @param scope the exact scope the publisher registered under
 * @param topic the topic, e.g. {@code kv-events} (non-empty)
 * @param instanceId the publisher's instance id (a 53-bit random publisher id)
 */
public record EventChannelKey(EventScope scope, String topic, long instanceId) implements DiscoveryKey {

  /** @throws IllegalArgumentException if the topic is empty or not well-formed */
  public EventChannelKey {
    Names.require("topic", topic);
  }

  @Override
  public DiscoveryKind kind() {
    return DiscoveryKind.EVENT_CHANNEL;
  }

  @Override
  public String path() {
    return scope.path() + "/topic/" + EventSegments.encode(topic) + "/" + Names.hex(instanceId);
  }

  @Override
  public String namespace() {
    return scope.namespace();
  }
}
