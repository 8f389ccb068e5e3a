package dev.kvrelay.spi.eventplane;

import java.util.Objects;

/**
 * Immutable and thread-safe: a worker instance's request-plane address (the discovery {@code transport}
 * of an Endpoint instance, runtime-inputs.md §1.2).
 *
 * @param kind the transport
 * @param address e.g. {@code 10.1.2.3:9999/generate} for TCP, a subject for NATS
 */
public record TransportAddress(Kind kind, String address) {

  /** Immutable and thread-safe: the transports of an Endpoint instance. */
  public enum Kind {
    /** {@code {"tcp": "host:port/…"}}. */
    TCP,
    /** {@code {"nats_tcp": "<subject>"}}. */
    NATS_TCP,
    /** {@code {"http": "<url>"}} (older builds). */
    HTTP
  }

  /** Requires non-null parts and a non-empty address. */
  public TransportAddress {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(address, "address");
    if (address.isEmpty()) {
      throw new IllegalArgumentException("address must not be empty");
    }
  }

  /** A TCP address {@code host:port/…}. */
  public static TransportAddress tcp(String address) {
    return new TransportAddress(Kind.TCP, address);
  }
}
