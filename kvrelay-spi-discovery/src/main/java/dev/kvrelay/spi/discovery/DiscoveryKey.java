package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.EventSegments;
import dev.kvrelay.api.WireValidationException;
import java.util.Comparator;

/**
 * Immutable and thread-safe: the full discovery id of one object, with its path form relative to the
 * kind's bucket ({@code runtime-inputs.md} §1.4). Keys are compared by value; {@link #ORDER} sorts them
 * by kind, then path.
 *
 * <ul>
 *   <li>{@link EndpointKey}: {@code {ns}/{comp}/{ep}/{iid_hex}}
 *   <li>{@link ModelKey}: {@code {ns}/{comp}/{ep}/{iid_hex}[/{suffix}]}
 *   <li>{@link EventChannelKey}, {@link EventSourceKey}: {@code namespace/{ns}[/component/{c}[/endpoint/{e}]]
 *       /topic/{topic}/{id_hex}}, segments percent-encoded ({@link EventSegments})
 * </ul>
 *
 * Ids are lowercase hex without padding. Instance and model-card path parts are not encoded, so they
 * must not contain {@code /}.
 */
public sealed interface DiscoveryKey permits EndpointKey, ModelKey, EventChannelKey, EventSourceKey {

  /** Orders keys by kind, then path (code-unit order). */
  Comparator<DiscoveryKey> ORDER = Comparator.comparing(DiscoveryKey::kind).thenComparing(DiscoveryKey::path);

  /** The kind, which picks the bucket. */
  DiscoveryKind kind();

  /** The path relative to the bucket. */
  String path();

  /** The Dynamo namespace the object lives in. */
  String namespace();

  /** The full etcd key: {@code bucket + "/" + path}. */
  default String storageKey() {
    return kind().bucket() + "/" + path();
  }

  /**
   * Parses a path of the given kind (the inverse of {@link #path()}).
   *
   * @throws DiscoveryDecodeException (INVALID_PATH) if it has none of the §1.4 forms
   */
  static DiscoveryKey parse(DiscoveryKind kind, String path) throws DiscoveryDecodeException {
    try {
      return switch (kind) {
        case ENDPOINT, MODEL -> parseInstancePath(kind, path);
        default -> parseEventPath(kind, path);
      };
    } catch (DiscoveryDecodeException e) {
      throw e.at(kind.bucket() + "/" + path);
    }
  }

  /**
   * Parses a full etcd key ({@code v1/instances/…}, {@code v1/mdc/…}, {@code v1/event_channels/…},
   * {@code v1/event_sources/…}).
   *
   * @throws DiscoveryDecodeException (INVALID_PATH) if the bucket is unknown or the path malformed
   */
  static DiscoveryKey parseStorageKey(String storageKey) throws DiscoveryDecodeException {
    for (DiscoveryKind kind : DiscoveryKind.values()) {
      String prefix = kind.bucket() + "/";
      if (storageKey.startsWith(prefix)) {
        return parse(kind, storageKey.substring(prefix.length()));
      }
    }
    throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.INVALID_PATH, "", storageKey,
        "key is in no discovery bucket", null);
  }

  private static DiscoveryKey parseInstancePath(DiscoveryKind kind, String path) throws DiscoveryDecodeException {
    String[] parts = path.split("/", -1);
    boolean shapeOk = kind == DiscoveryKind.ENDPOINT ? parts.length == 4 : parts.length == 4 || parts.length == 5;
    if (!shapeOk) {
      throw invalidPath(kind == DiscoveryKind.ENDPOINT
          ? "an instance path has exactly 4 '/'-separated parts"
          : "a model-card path has 4 or 5 '/'-separated parts");
    }
    DynamoEndpointId endpoint;
    try {
      endpoint = DynamoEndpointId.fromWire(parts[0], parts[1], parts[2]);
    } catch (WireValidationException e) {
      throw invalidPath(e.field() + ": " + e.detail());
    }
    long id = Names.parseHex(parts[3], "");
    if (kind == DiscoveryKind.ENDPOINT) {
      return new EndpointKey(endpoint, id);
    }
    String suffix = parts.length == 5 ? parts[4] : null;
    if (suffix != null && Names.problem(suffix) != null) {
      throw invalidPath("model suffix " + Names.problem(suffix));
    }
    return new ModelKey(endpoint, id, suffix);
  }

  private static DiscoveryKey parseEventPath(DiscoveryKind kind, String path) throws DiscoveryDecodeException {
    String[] p = path.split("/", -1);
    if ((p.length != 5 && p.length != 7 && p.length != 9) || !p[0].equals("namespace")) {
      throw invalidPath("an event path is namespace/{ns}[/component/{c}[/endpoint/{e}]]/topic/{topic}/{id_hex}");
    }
    String namespace = nonEmpty(segment(p[1]));
    EventScope scope;
    if (p.length == 5) {
      scope = new EventScope.Namespace(namespace);
    } else if (!p[2].equals("component")) {
      throw invalidPath("expected 'component' after the namespace");
    } else if (p.length == 7) {
      scope = new EventScope.Component(namespace, nonEmpty(segment(p[3])));
    } else if (!p[4].equals("endpoint")) {
      throw invalidPath("expected 'endpoint' after the component");
    } else {
      try {
        scope = new EventScope.Endpoint(DynamoEndpointId.fromWire(
            namespace, segment(p[3]), segment(p[5])));
      } catch (WireValidationException e) {
        throw invalidPath(e.field() + ": " + e.detail());
      }
    }
    int t = p.length - 3;
    if (!p[t].equals("topic")) {
      throw invalidPath("expected 'topic' after the scope");
    }
    String topic = nonEmpty(segment(p[t + 1]));
    long id = Names.parseHex(p[t + 2], "");
    return kind == DiscoveryKind.EVENT_CHANNEL
        ? new EventChannelKey(scope, topic, id)
        : new EventSourceKey(scope, topic, id);
  }

  /** Decodes a §1.3 segment; a non-canonical one makes the path invalid. */
  private static String segment(String encoded) throws DiscoveryDecodeException {
    try {
      return EventSegments.decode(encoded);
    } catch (WireValidationException e) {
      throw invalidPath(e.detail());
    }
  }

  private static String nonEmpty(String segment) throws DiscoveryDecodeException {
    if (segment.isEmpty()) {
      throw invalidPath("an event path segment is empty");
    }
    return segment;
  }

  private static DiscoveryDecodeException invalidPath(String why) {
    return new DiscoveryDecodeException(DiscoveryDecodeException.Reason.INVALID_PATH, "", why);
  }
}
