package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: how a {@link ZmqEventPlane} runs, read from the environment names of
 * runtime-inputs §5.1 and §9 ({@link #from(EventPlaneSettings)}).
 *
 * <ul>
 *   <li>{@code DYN_ZMQ_BROKER_URL=xsub=a;b , xpub=c;d}: {@link Mode#BROKER_URL}; subscriptions connect to the
 *       listed XPUB endpoints at once and ignore channels. Exactly two comma-separated parts, prefixed
 *       {@code xsub=} and {@code xpub=}, each a {@code ;}-separated non-empty list (upstream
 *       {@code parse_broker_url}); set but malformed (even empty) is an error.
 *   <li>else {@code DYN_ZMQ_BROKER_ENABLED} truthy ({@code 1}, {@code true}, {@code on}, {@code yes}, any
 *       case): {@link Mode#BROKER_DISCOVERED}; subscriptions connect to the XPUB endpoints of the
 *       {@code ZmqBroker} channels they are given (brokers are discovery EventChannels of component
 *       {@code zmq_broker}).
 *   <li>else {@link Mode#DIRECT}: subscriptions connect to each publisher's advertised {@code Zmq} channel.
 *   <li>{@code DYN_ZMQ_IO_THREADS}: the jeromq context's I/O threads, a positive integer, default 4.
 * </ul>
 *
 * @param mode direct or broker mode
 * @param ioThreads the context's I/O threads (≥ 1)
 * @param xsubEndpoints the broker's XSUB endpoints ({@link Mode#BROKER_URL} only; publishers connect there)
 * @param xpubEndpoints the broker's XPUB endpoints ({@link Mode#BROKER_URL} only; subscriptions connect there)
 */
public record ZmqSettings(Mode mode, int ioThreads, List<String> xsubEndpoints, List<String> xpubEndpoints) {
  /** {@code DYN_ZMQ_BROKER_URL}. */
  public static final String BROKER_URL = "DYN_ZMQ_BROKER_URL";
  /** {@code DYN_ZMQ_BROKER_ENABLED}. */
  public static final String BROKER_ENABLED = "DYN_ZMQ_BROKER_ENABLED";
  /** {@code DYN_ZMQ_IO_THREADS}. */
  public static final String IO_THREADS = "DYN_ZMQ_IO_THREADS";
  /** The default of {@code DYN_ZMQ_IO_THREADS}. */
  public static final int DEFAULT_IO_THREADS = 4;

  /** Immutable and thread-safe: the topology (runtime-inputs §5.1, §5.3). */
  public enum Mode {
    /** Per-publisher PUB sockets; frame 0 and the SUB filter are the plain topic. */
    DIRECT,
    /** Brokers from {@code DYN_ZMQ_BROKER_URL}; frame 0 and the SUB filter are the full subject. */
    BROKER_URL,
    /** Brokers from discovery ({@code DYN_ZMQ_BROKER_ENABLED}); frame 0 and the filter are the full subject. */
    BROKER_DISCOVERED
  }

  /** Validates and copies. */
  public ZmqSettings {
    Objects.requireNonNull(mode, "mode");
    if (ioThreads < 1) {
      throw new IllegalArgumentException("ioThreads must be positive: " + ioThreads);
    }
    xsubEndpoints = List.copyOf(xsubEndpoints);
    xpubEndpoints = List.copyOf(xpubEndpoints);
    if (mode == Mode.BROKER_URL && (xsubEndpoints.isEmpty() || xpubEndpoints.isEmpty())) {
      throw new IllegalArgumentException("broker mode needs at least one xsub and one xpub endpoint");
    }
  }

  /** Direct mode with {@code ioThreads} I/O threads. */
  public static ZmqSettings direct(int ioThreads) {
    return new ZmqSettings(Mode.DIRECT, ioThreads, List.of(), List.of());
  }

  /** Broker mode over the given endpoints. */
  public static ZmqSettings broker(int ioThreads, List<String> xsubEndpoints, List<String> xpubEndpoints) {
    return new ZmqSettings(Mode.BROKER_URL, ioThreads, xsubEndpoints, xpubEndpoints);
  }

  /** True in either broker mode (frame 0 is the full subject). */
  public boolean brokered() {
    return mode != Mode.DIRECT;
  }

  /**
   * Reads the settings.
   *
   * @throws EventPlaneException of kind {@code INVALID_ARGUMENT} naming the variable, for a malformed value
   */
  public static ZmqSettings from(EventPlaneSettings settings) throws EventPlaneException {
    int io = ioThreads(settings.property(IO_THREADS));
    Optional<String> url = settings.property(BROKER_URL);
    if (url.isPresent()) {
      List<List<String>> parsed = parseBrokerUrl(url.get());
      return new ZmqSettings(Mode.BROKER_URL, io, parsed.get(0), parsed.get(1));
    }
    if (settings.property(BROKER_ENABLED).map(ZmqSettings::truthy).orElse(false)) {
      return new ZmqSettings(Mode.BROKER_DISCOVERED, io, List.of(), List.of());
    }
    return direct(io);
  }

  private static int ioThreads(Optional<String> value) throws EventPlaneException {
    if (value.isEmpty() || value.get().isBlank()) {
      return DEFAULT_IO_THREADS;
    }
    try {
      int n = Integer.parseInt(value.get().trim());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw invalid(IO_THREADS + ": expected a positive integer, got '" + value.get() + "'");
  }

  static boolean truthy(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    return v.equals("1") || v.equals("true") || v.equals("on") || v.equals("yes");
  }

  /** [xsub endpoints, xpub endpoints] of {@code xsub=a;b , xpub=c;d}. */
  static List<List<String>> parseBrokerUrl(String url) throws EventPlaneException {
    String[] parts = url.split(",", -1);
    if (parts.length != 2) {
      throw invalid(BROKER_URL + ": expected 'xsub=<urls> , xpub=<urls>', got '" + url + "'");
    }
    List<String> xsub = List.of();
    List<String> xpub = List.of();
    for (String raw : parts) {
      String part = raw.trim();
      if (part.startsWith("xsub=")) {
        xsub = endpoints(part.substring(5));
      } else if (part.startsWith("xpub=")) {
        xpub = endpoints(part.substring(5));
      } else {
        throw invalid(BROKER_URL + ": expected an 'xsub=' or 'xpub=' part, got '" + part + "'");
      }
    }
    if (xsub.isEmpty() || xpub.isEmpty()) {
      throw invalid(BROKER_URL + ": needs at least one xsub and one xpub endpoint, got xsub=" + xsub
          + " xpub=" + xpub);
    }
    for (String e : xpub) {
      String why = ZmqEndpoints.problem(e);
      if (why != null) {
        throw invalid(BROKER_URL + ": xpub endpoint '" + e + "' " + why);
      }
    }
    return List.of(xsub, xpub);
  }

  private static List<String> endpoints(String list) {
    List<String> out = new ArrayList<>();
    for (String s : list.split(";", -1)) {
      String t = s.trim();
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
    return out;
  }

  private static EventPlaneException invalid(String message) {
    return new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT, message);
  }
}
