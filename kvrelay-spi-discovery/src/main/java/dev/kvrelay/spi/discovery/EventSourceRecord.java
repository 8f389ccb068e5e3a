package dev.kvrelay.spi.discovery;

/**
 * Immutable and thread-safe: a KV event source advertisement ({@code DiscoveryInstance::EventSource}).
 *
 * @param key scope, topic and publisher id
 * @param source the advertised {@code KvEventSource}; its publisher id equals the key's
 */
public record EventSourceRecord(EventSourceKey key, KvEventSource source) implements DiscoveryRecord {

  /** @throws IllegalArgumentException if the publisher ids differ */
  public EventSourceRecord {
    if (key.publisherId() != source.publisherId()) {
      throw new IllegalArgumentException("metadata.publisher_id " + Long.toUnsignedString(source.publisherId())
          + " differs from publisher_id " + Long.toUnsignedString(key.publisherId()));
    }
  }
}
