package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.discovery.file.FileKvRegistration;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import java.util.List;
import java.util.Objects;

/**
 * Thread-safe (implementations serialize their own writes): how the diagnostic endpoints are advertised as endpoint
 * instances ({@code DiscoveryInstance::Endpoint}, runtime-inputs §1.2) in the chosen discovery backend. The
 * discovery SPI has no registration API yet, so each backend's own one is wrapped here: etcd
 * ({@code EtcdDiscovery.instanceId()}, {@code register(record)}, {@code deregister(key)}), Kubernetes
 * ({@code KubernetesDiscovery.register(records)} / {@code unregister(keys)}, instance id = the SipHash of its CR
 * name), the file store ({@code FileDiscovery.register()} → {@code FileKvRegistration.connectionId()},
 * {@code put}, {@code remove}) and {@link #inMemory}.
 */
public interface EndpointRegistrar {

  /** The instance id this process registers under (etcd lease id, Kubernetes CR hash, file connection id). */
  long instanceId();

  /**
   * Advertises {@code records} (their keys carry {@link #instanceId()}).
   *
   * @throws DiscoveryException if the backend refuses or cannot be reached
   */
  void register(List<EndpointRecord> records) throws DiscoveryException;

  /**
   * Withdraws {@code keys}; unknown keys are ignored.
   *
   * @throws DiscoveryException if the backend cannot be reached
   */
  void unregister(List<EndpointKey> keys) throws DiscoveryException;

  /** Registration into the in-process backend ({@code DYN_DISCOVERY_BACKEND=mem}, tests) under {@code instanceId}. */
  static EndpointRegistrar inMemory(InMemoryDiscovery discovery, long instanceId) {
    Objects.requireNonNull(discovery, "discovery");
    return new EndpointRegistrar() {
      @Override
      public long instanceId() {
        return instanceId;
      }

      @Override
      public void register(List<EndpointRecord> records) {
        for (EndpointRecord r : records) {
          discovery.put(r);
        }
      }

      @Override
      public void unregister(List<EndpointKey> keys) {
        for (EndpointKey k : keys) {
          discovery.remove(k);
        }
      }
    };
  }

  /**
   * Registration into Dynamo's file KV store ({@code DYN_DISCOVERY_BACKEND=file}, plugins-wire §8) under the
   * registration's connection id: one key file per record, refreshed and removed by {@code registration}.
   */
  static EndpointRegistrar fileStore(FileKvRegistration registration) {
    Objects.requireNonNull(registration, "registration");
    return new EndpointRegistrar() {
      @Override
      public long instanceId() {
        return registration.connectionId();
      }

      @Override
      public void register(List<EndpointRecord> records) throws DiscoveryException {
        for (EndpointRecord r : records) {
          registration.put(r);
        }
      }

      @Override
      public void unregister(List<EndpointKey> keys) throws DiscoveryException {
        for (EndpointKey k : keys) {
          registration.remove(k);
        }
      }
    };
  }
}
