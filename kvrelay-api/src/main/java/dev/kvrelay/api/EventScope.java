package dev.kvrelay.api;

import java.util.Objects;

/**
 * Immutable and thread-safe: the scope an event publisher or subscription lives in ({@code
 * runtime-inputs.md} §1.2 {@code scope}, tagged on {@code "kind"}; §5.3): a namespace, a component of a
 * namespace, or an endpoint. The one scope type of both the discovery and the event-plane SPI.
 *
 * <p>Its two string forms encode every segment with {@link EventSegments}: the discovery path prefix
 * ({@link #path()}, §1.4) and the event-plane subject prefix ({@link #subjectPrefix()}, §5.3). Discovery
 * queries are exact-scope: a namespace-scoped query does not return component- or endpoint-scoped
 * publishers.
 */
public sealed interface EventScope permits EventScope.Namespace, EventScope.Component, EventScope.Endpoint {

  /**
   * The scope of namespace {@code namespace}.
   *
   * @throws IllegalArgumentException if the name is empty or not well-formed
   */
  static EventScope namespace(String namespace) {
    return new Namespace(namespace);
  }

  /**
   * The scope of component {@code component} in {@code namespace}.
   *
   * @throws IllegalArgumentException if a name is empty or not well-formed
   */
  static EventScope component(String namespace, String component) {
    return new Component(namespace, component);
  }

  /** The scope of {@code endpoint}. */
  static EventScope endpoint(DynamoEndpointId endpoint) {
    return new Endpoint(endpoint);
  }

  /** The Dynamo namespace. */
  String namespace();

  /** The §1.4 path prefix, segments percent-encoded, e.g. {@code namespace/dynamo/component/backend}. */
  String path();

  /**
   * The event-plane subject prefix (§5.3), segments percent-encoded: {@code namespace.{ns}}, {@code
   * namespace.{ns}.component.{c}} or {@code namespace.{ns}.component.{c}.endpoint.{e}}.
   */
  String subjectPrefix();

  /**
   * The subject of {@code topic} in this scope (§5.3): {@link #subjectPrefix()} + {@code .} + encoded
   * topic, e.g. {@code namespace.dynamo.component.backend.endpoint.generate.kv-events}. NATS publishes and
   * subscribes exactly this; ZMQ broker mode uses it as frame 0.
   *
   * @throws IllegalArgumentException if {@code topic} has an unpaired surrogate (no UTF-8 form)
   */
  default String subject(String topic) {
    return subjectPrefix() + "." + EventSegments.encode(topic);
  }

  /**
   * Immutable and thread-safe: namespace scope, {@code {"kind":"namespace","name":…}}.
   *
   * @param namespace the namespace (non-empty)
   */
  record Namespace(String namespace) implements EventScope {
    /** @throws IllegalArgumentException if the name is empty or not well-formed */
    public Namespace {
      requireName("namespace", namespace);
    }

    @Override
    public String path() {
      return "namespace/" + EventSegments.encode(namespace);
    }

    @Override
    public String subjectPrefix() {
      return "namespace." + EventSegments.encode(namespace);
    }
  }

  /**
   * Immutable and thread-safe: component scope, {@code {"kind":"component","namespace":…,"component":…}}.
   *
   * @param namespace the namespace (non-empty)
   * @param component the component (non-empty)
   */
  record Component(String namespace, String component) implements EventScope {
    /** @throws IllegalArgumentException if a name is empty or not well-formed */
    public Component {
      requireName("namespace", namespace);
      requireName("component", component);
    }

    @Override
    public String path() {
      return "namespace/" + EventSegments.encode(namespace) + "/component/" + EventSegments.encode(component);
    }

    @Override
    public String subjectPrefix() {
      return "namespace." + EventSegments.encode(namespace) + ".component." + EventSegments.encode(component);
    }
  }

  /**
   * Immutable and thread-safe: endpoint scope, {@code {"kind":"endpoint","endpoint":{"namespace","component",
   * "name"}}}.
   *
   * @param endpoint the endpoint
   */
  record Endpoint(DynamoEndpointId endpoint) implements EventScope {
    /** Requires an endpoint. */
    public Endpoint {
      Objects.requireNonNull(endpoint, "endpoint");
    }

    @Override
    public String namespace() {
      return endpoint.namespace();
    }

    @Override
    public String path() {
      return new Component(endpoint.namespace(), endpoint.component()).path()
          + "/endpoint/" + EventSegments.encode(endpoint.endpoint());
    }

    @Override
    public String subjectPrefix() {
      return new Component(endpoint.namespace(), endpoint.component()).subjectPrefix()
          + ".endpoint." + EventSegments.encode(endpoint.endpoint());
    }
  }

  /** Requires a scope name from a trusted caller: non-empty and well-formed UTF-16 (so it has a UTF-8 form). */
  private static void requireName(String what, String name) {
    Objects.requireNonNull(name, what);
    if (name.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
    if (!WireText.isWellFormed(name)) {
      throw new IllegalArgumentException(what + " contains an unpaired surrogate");
    }
  }
}
