package dev.kvrelay.spi.discovery;

/**
 * Immutable and thread-safe: one decoded discovery object ({@code runtime-inputs.md} §1.2
 * {@code DiscoveryInstance}), keyed by its full discovery id.
 */
public sealed interface DiscoveryRecord permits EndpointRecord, ModelRecord, EventSourceRecord, EventChannelRecord {

  /** The full discovery id. */
  DiscoveryKey key();
}
