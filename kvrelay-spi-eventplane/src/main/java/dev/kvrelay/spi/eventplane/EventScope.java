package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.DynamoEndpointId;
import java.util.Objects;

/**
 * Immutable and thread-safe: the scope an event-plane publisher or subscription lives in (runtime-inputs.md
 * §1.2, §5.3): a namespace, a component of a namespace, or an endpoint.
 */
public sealed interface EventScope permits EventScope.Namespace, EventScope.Component, EventScope.Endpoint {

  /** The scope of namespace {@code namespace}. */
  static EventScope namespace(String namespace) {
    return new Namespace(namespace);
  }

  /** The scope of component {@code component} in {@code namespace}. */
  static EventScope component(String namespace, String component) {
    return new Component(namespace, component);
  }

  /** The scope of {@code endpoint}. */
  static EventScope endpoint(DynamoEndpointId endpoint) {
    return new Endpoint(endpoint);
  }

  /**
   * Immutable and thread-safe: namespace scope ({@code namespace.{ns}}).
   *
   * @param namespace the Dynamo namespace (non-empty)
   */
  record Namespace(String namespace) implements EventScope {
    /** Requires a non-empty namespace. */
    public Namespace {
      requireSegment("namespace", namespace);
    }
  }

  /**
   * Immutable and thread-safe: component scope ({@code namespace.{ns}.component.{c}}).
   *
   * @param namespace the Dynamo namespace (non-empty)
   * @param component the component (non-empty)
   */
  record Component(String namespace, String component) implements EventScope {
    /** Requires non-empty parts. */
    public Component {
      requireSegment("namespace", namespace);
      requireSegment("component", component);
    }
  }

  /**
   * Immutable and thread-safe: endpoint scope ({@code namespace.{ns}.component.{c}.endpoint.{e}}).
   *
   * @param endpoint the endpoint
   */
  record Endpoint(DynamoEndpointId endpoint) implements EventScope {
    /** Requires an endpoint. */
    public Endpoint {
      Objects.requireNonNull(endpoint, "endpoint");
    }
  }

  private static void requireSegment(String what, String value) {
    Objects.requireNonNull(value, what);
    if (value.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }
}
