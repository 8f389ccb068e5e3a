package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: an endpoint instance ({@code DiscoveryInstance::Endpoint}; also the
 * {@code recovery_target} of a {@link KvEventSource}).
 *
 * @param key endpoint and instance id
 * @param transport the request-plane transport
 * @param requestPlaneCodec {@code "json"} / {@code "msgpack"}, or {@code null} when absent (a legacy
 *     JSON-only worker)
 * @param deviceType {@code "cpu"} / {@code "cuda"}, or {@code null} when absent or null
 */
public record EndpointRecord(
    EndpointKey key, Transport transport, @Nullable String requestPlaneCodec, @Nullable String deviceType)
    implements DiscoveryRecord {

  /** The serving endpoint. */
  public DynamoEndpointId endpoint() {
    return key.endpoint();
  }

  /** The instance id (= worker id). */
  public long instanceId() {
    return key.instanceId();
  }
}
