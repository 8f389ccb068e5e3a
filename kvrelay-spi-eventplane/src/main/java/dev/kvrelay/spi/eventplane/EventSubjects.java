package dev.kvrelay.spi.eventplane;

import java.nio.charset.StandardCharsets;

/**
 * Stateless and thread-safe: event-plane subject strings (runtime-inputs.md §1.3, §5.3). Every segment is
 * percent-encoded: bytes {@code [A-Za-z0-9_-]} of its UTF-8 form pass through, every other byte becomes
 * {@code %HH} (uppercase hex).
 */
public final class EventSubjects {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private EventSubjects() {}

  /** One percent-encoded segment, e.g. {@code ns.a/b} → {@code ns%2Ea%2Fb}. */
  public static String encodeSegment(String segment) {
    byte[] bytes = segment.getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder(bytes.length + 8);
    for (byte b : bytes) {
      int c = b & 0xFF;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
        sb.append((char) c);
      } else {
        sb.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
      }
    }
    return sb.toString();
  }

  /**
   * The scope prefix: {@code namespace.{ns}}, {@code namespace.{ns}.component.{c}} or
   * {@code namespace.{ns}.component.{c}.endpoint.{e}}, segments encoded.
   */
  public static String prefix(EventScope scope) {
    if (scope instanceof EventScope.Namespace n) {
      return "namespace." + encodeSegment(n.namespace());
    }
    if (scope instanceof EventScope.Component c) {
      return "namespace." + encodeSegment(c.namespace()) + ".component." + encodeSegment(c.component());
    }
    EventScope.Endpoint e = (EventScope.Endpoint) scope;
    return "namespace." + encodeSegment(e.endpoint().namespace())
        + ".component." + encodeSegment(e.endpoint().component())
        + ".endpoint." + encodeSegment(e.endpoint().endpoint());
  }

  /**
   * The subject of {@code topic} in {@code scope}: prefix + {@code .} + encoded topic, e.g.
   * {@code namespace.dynamo.component.backend.endpoint.generate.kv-events}. NATS publishes and subscribes
   * exactly this; ZMQ broker mode uses it as frame 0.
   */
  public static String subject(EventScope scope, String topic) {
    return prefix(scope) + "." + encodeSegment(topic);
  }
}
