package dev.kvrelay.api;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a Dynamo serving endpoint {@code (namespace, component, endpoint)} (wire
 * {@code DynamoEndpointId}). Each part is valid text: non-empty, no leading or trailing whitespace.
 *
 * <p>Equality and order are on the tuple (parts compared in code-point order, which is UTF-8 byte
 * order), never on a joined string: {@code ("a.b", "c", "d")} and {@code ("a", "b.c", "d")} share the
 * dotted name {@code a.b.c.d} but are different endpoints.
 *
 * @param namespace Dynamo namespace
 * @param component component name
 * @param endpoint endpoint name
 */
public record DynamoEndpointId(String namespace, String component, String endpoint)
    implements Comparable<DynamoEndpointId> {

  /**
   * Trusted constructor.
   *
   * @throws IllegalArgumentException if a part is empty, surrounded by whitespace or not valid text
   */
  public DynamoEndpointId {
    WireText.require("namespace", namespace);
    WireText.require("component", component);
    WireText.require("endpoint", endpoint);
  }

  /** Validates wire parts; an invalid part is malformed. */
  public static DynamoEndpointId fromWire(
      @Nullable String namespace, @Nullable String component, @Nullable String endpoint)
      throws WireValidationException {
    return fromWire("", namespace, component, endpoint);
  }

  static DynamoEndpointId fromWire(
      String prefix, @Nullable String namespace, @Nullable String component, @Nullable String endpoint)
      throws WireValidationException {
    return new DynamoEndpointId(
        WireText.check(prefix + "namespace", namespace),
        WireText.check(prefix + "component", component),
        WireText.check(prefix + "endpoint", endpoint));
  }

  /**
   * Parses the path form {@code namespace/component/endpoint} (e.g. {@code prod/router/generate}):
   * exactly three {@code /}-separated parts, each valid text.
   *
   * @throws WireValidationException (malformed) otherwise
   */
  public static DynamoEndpointId parse(@Nullable String path) throws WireValidationException {
    if (path == null) {
      throw WireValidationException.malformed("endpoint", "endpoint path is missing");
    }
    int first = path.indexOf('/');
    int second = first < 0 ? -1 : path.indexOf('/', first + 1);
    if (first < 0 || second < 0 || path.indexOf('/', second + 1) >= 0) {
      throw WireValidationException.malformed(
          "endpoint", "endpoint path must be namespace/component/endpoint, got '" + path + "'");
    }
    return fromWire(
        "endpoint.", path.substring(0, first), path.substring(first + 1, second), path.substring(second + 1));
  }

  /** The path form {@code namespace/component/endpoint}; round-trips through {@link #parse} if no part contains '/'. */
  public String path() {
    return namespace + "/" + component + "/" + endpoint;
  }

  /** The dotted name {@code namespace.component.endpoint} (display only; not unique). */
  public String dottedName() {
    return namespace + "." + component + "." + endpoint;
  }

  @Override
  public int compareTo(DynamoEndpointId other) {
    int c = WireText.compareCodePoints(namespace, other.namespace);
    if (c == 0) {
      c = WireText.compareCodePoints(component, other.component);
    }
    return c != 0 ? c : WireText.compareCodePoints(endpoint, other.endpoint);
  }

  /** The path form. */
  @Override
  public String toString() {
    return path();
  }
}
