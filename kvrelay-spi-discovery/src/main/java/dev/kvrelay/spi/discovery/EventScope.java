package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;

/**
 * Immutable and thread-safe: the scope an event publisher registers under ({@code runtime-inputs.md}
 * §1.2 {@code scope}, tagged on {@code "kind"}): a namespace, a component, or an endpoint. Queries are
 * exact-scope: a namespace-scoped query does not return component- or endpoint-scoped publishers.
 */
public sealed interface EventScope permits EventScope.Namespace, EventScope.Component, EventScope.Endpoint {

  /** The Dynamo namespace. */
  String namespace();

  /** The §1.4 path prefix, segments percent-encoded, e.g. {@code namespace/dynamo/component/backend}. */
  String path();

  /** The event-plane subject prefix (§5.3), e.g. {@code namespace.dynamo.component.backend}. */
  String subjectPrefix();

  /**
   * Immutable and thread-safe: {@code {"kind":"namespace","name":…}}.
   *
   * @param namespace the namespace (non-empty)
   */
  record Namespace(String namespace) implements EventScope {
    /** @throws IllegalArgumentException if the name is empty or not well-formed */
    public Namespace {
      Names.require("namespace", namespace);
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
   * Immutable and thread-safe: {@code {"kind":"component","namespace":…,"component":…}}.
   *
   * @param namespace the namespace (non-empty)
   * @param component the component (non-empty)
   */
  record Component(String namespace, String component) implements EventScope {
    /** @throws IllegalArgumentException if a name is empty or not well-formed */
    public Component {
      Names.require("namespace", namespace);
      Names.require("component", component);
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
   * Immutable and thread-safe: {@code {"kind":"endpoint","endpoint":{"namespace","component","name"}}}.
   *
   * @param endpoint the endpoint
   */
  record Endpoint(DynamoEndpointId endpoint) implements EventScope {
    @Override
    public String namespace() {
      return endpoint.namespace();
    }

    @Override
    public String path() {
      return "namespace/" + EventSegments.encode(endpoint.namespace())
          + "/component/" + EventSegments.encode(endpoint.component())
          + "/endpoint/" + EventSegments.encode(endpoint.endpoint());
    }

    @Override
    public String subjectPrefix() {
      return "namespace." + EventSegments.encode(endpoint.namespace())
          + ".component." + EventSegments.encode(endpoint.component())
          + ".endpoint." + EventSegments.encode(endpoint.endpoint());
    }
  }
}
