package dev.kvrelay.spi.discovery;

/**
 * Immutable and thread-safe: the transport locator of one event publisher ({@code
 * DiscoveryInstance::EventChannel}, also read from the legacy flat shape).
 *
 * @param key scope, topic and publisher instance id
 * @param transport where to read the publisher's events
 */
public record EventChannelRecord(EventChannelKey key, ChannelTransport transport) implements DiscoveryRecord {}
