package dev.kvrelay.spi.discovery;

/**
 * Immutable and thread-safe: an endpoint instance's request-plane transport ({@code runtime-inputs.md}
 * §1.2, externally tagged {@code {"tcp": …}}, {@code {"nats_tcp": …}}, {@code {"http": …}}; readers also
 * accept case and underscore variants such as {@code "Tcp"}, {@code "NatsTcp"} or the older {@code "Nats"}).
 */
public sealed interface Transport permits Transport.Tcp, Transport.NatsTcp, Transport.Http {

  /** The JSON tag this transport is written with. */
  String tag();

  /** The transport's one string value. */
  String value();

  /**
   * Immutable and thread-safe: {@code {"tcp": "host:port/endpoint"}}; newer builds may add the instance id
   * after the host and port (§11 Q3).
   *
   * @param address the address string, as advertised
   */
  record Tcp(String address) implements Transport {
    @Override
    public String tag() {
      return "tcp";
    }

    @Override
    public String value() {
      return address;
    }

    /** {@code host:port}: the part before the first {@code /}. */
    public String hostAndPort() {
      int slash = address.indexOf('/');
      return slash < 0 ? address : address.substring(0, slash);
    }

    /** The part after the first {@code /} (the request-plane endpoint path), or empty. */
    public String endpointPath() {
      int slash = address.indexOf('/');
      return slash < 0 ? "" : address.substring(slash + 1);
    }
  }

  /**
   * Immutable and thread-safe: {@code {"nats_tcp": "<subject>"}}.
   *
   * @param subject the NATS subject
   */
  record NatsTcp(String subject) implements Transport {
    @Override
    public String tag() {
      return "nats_tcp";
    }

    @Override
    public String value() {
      return subject;
    }
  }

  /**
   * Immutable and thread-safe: {@code {"http": "<url>"}} (older builds).
   *
   * @param url the URL
   */
  record Http(String url) implements Transport {
    @Override
    public String tag() {
      return "http";
    }

    @Override
    public String value() {
      return url;
    }
  }
}
