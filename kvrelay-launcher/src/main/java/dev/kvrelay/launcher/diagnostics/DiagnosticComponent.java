package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.api.DynamoEndpointId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Immutable and thread-safe: the Dynamo component the diagnostic endpoints live in (producer.md §7.5):
 * {@code <namespace>.kv_dc_relay_<first 32 lowercase hex chars of SHA-256(UTF-8 dc_id)>}, with the endpoints
 * {@code health}, {@code stats} and {@code snapshot}.
 *
 * @param namespace {@code DYN_NAMESPACE} (default {@value #DEFAULT_NAMESPACE}); it does not select watched namespaces
 * @param dcId the {@code --dc-id} text, as given
 */
public record DiagnosticComponent(String namespace, String dcId) {
  /** {@code DYN_NAMESPACE} when unset (producer.md §7.5). */
  public static final String DEFAULT_NAMESPACE = "dynamo";
  /** The component name's prefix. */
  public static final String COMPONENT_PREFIX = "kv_dc_relay_";
  /** The endpoint served always. */
  public static final String HEALTH = "health";
  /** The stats endpoint (upstream: only with the {@code ckf-diagnostics} build; always here). */
  public static final String STATS = "stats";
  /** The snapshot endpoint (upstream: only with the {@code ckf-diagnostics} build; always here). */
  public static final String SNAPSHOT = "snapshot";
  /** The three endpoint names, in registration order. */
  public static final List<String> ENDPOINTS = List.of(HEALTH, STATS, SNAPSHOT);

  /**
   * Checks both parts.
   *
   * @throws IllegalArgumentException if either is empty or surrounded by whitespace
   */
  public DiagnosticComponent {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(dcId, "dcId");
    if (namespace.isEmpty() || !namespace.strip().equals(namespace) || namespace.contains("/")) {
      throw new IllegalArgumentException("invalid DYN_NAMESPACE '" + namespace + "'");
    }
    if (dcId.isEmpty() || !dcId.strip().equals(dcId)) {
      throw new IllegalArgumentException("invalid dc_id '" + dcId + "'");
    }
  }

  /** {@code kv_dc_relay_} + the first 32 hex chars of SHA-256 over the UTF-8 bytes of {@code dcId}. */
  public static String componentName(String dcId) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(dcId.getBytes(StandardCharsets.UTF_8));
      return COMPONENT_PREFIX + HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM provides SHA-256", e);
    }
  }

  /** This relay's component name. */
  public String component() {
    return componentName(dcId);
  }

  /** The endpoint {@code name} of this component. */
  public DynamoEndpointId endpoint(String name) {
    return new DynamoEndpointId(namespace, component(), name);
  }
}
