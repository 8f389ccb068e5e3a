package dev.kvrelay.spi.discovery;

/**
 * Immutable and thread-safe: the four kinds of discovery object, each with its etcd bucket ({@code
 * runtime-inputs.md} §2.1), its {@code spec.data} map name (§3.1) and its {@code "type"} tag (§1.2).
 */
public enum DiscoveryKind {
  /** An endpoint instance (liveness and request-plane transport). */
  ENDPOINT("v1/instances", "endpoints", "Endpoint"),
  /** A model deployment card. */
  MODEL("v1/mdc", "model_cards", "Model"),
  /** Where to connect for one event publisher. */
  EVENT_CHANNEL("v1/event_channels", "event_channels", "EventChannel"),
  /** A typed KV event source advertisement. */
  EVENT_SOURCE("v1/event_sources", "event_sources", "EventSource");

  private final String bucket;
  private final String mapName;
  private final String typeTag;

  DiscoveryKind(String bucket, String mapName, String typeTag) {
    this.bucket = bucket;
    this.mapName = mapName;
    this.typeTag = typeTag;
  }

  /** The etcd key prefix, e.g. {@code v1/mdc}; a full key is {@code bucket + "/" + path}. */
  public String bucket() {
    return bucket;
  }

  /** The name of this kind's map in a {@code DynamoWorkerMetadata} {@code spec.data}. */
  public String mapName() {
    return mapName;
  }

  /** The {@code "type"} tag of this kind's {@code DiscoveryInstance} JSON. */
  public String typeTag() {
    return typeTag;
  }
}
