package dev.kvrelay.spi.discovery;

/**
 * Thread-safe: one process's own registrations in a discovery store — what a Dynamo worker (or the relay, for its own
 * runtime endpoints) advertises, bound to the store's notion of that process: an etcd lease, a Kubernetes pod's
 * DynamoWorkerMetadata CR, a file-KV connection id, or an in-memory owner ({@code runtime-inputs.md} §1.1, §2.2, §3.5,
 * {@code plugins-wire.md} §8). Every backend hands one out with {@link DiscoveryBackend#registrar()}; the SPI
 * test-jar's {@code DiscoveryRegistrarContract} is run against each.
 *
 * <p>Endpoint and model-card records must carry {@link #instanceId()} (the store derives it from the process);
 * event channels and sources are keyed by their publisher id and may be registered freely. Closing withdraws
 * everything still registered, as a graceful shutdown does.
 */
public interface DiscoveryRegistrar extends AutoCloseable {

  /** The instance id the store gives this process's endpoint instances and model cards (unsigned 64-bit). */
  long instanceId();

  /**
   * Writes one of this process's records, creating it or replacing the value under its key. On failure nothing
   * changes.
   *
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} for an endpoint or model key of another instance id,
   *     {@code UNAVAILABLE} if the store refuses or does not answer, {@code CLOSED} after {@link #close()}
   */
  void register(DiscoveryRecord record) throws DiscoveryException;

  /**
   * Withdraws one of this process's records.
   *
   * @return true if it was registered through this registrar (false: nothing changed)
   * @throws DiscoveryException {@code UNAVAILABLE} if the store does not answer, {@code CLOSED} after {@link #close()}
   */
  boolean deregister(DiscoveryKey key) throws DiscoveryException;

  /** Withdraws everything still registered and releases the registration. Idempotent. */
  @Override
  void close();

  /**
   * The checked owner rule: an endpoint or model key must carry {@code instanceId}.
   *
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} naming both ids
   */
  static void requireOwnedBy(long instanceId, DiscoveryKey key) throws DiscoveryException {
    long owner = key instanceof EndpointKey endpointKey ? endpointKey.instanceId()
        : key instanceof ModelKey modelKey ? modelKey.instanceId() : instanceId;
    if (owner != instanceId) {
      throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION, "cannot register "
          + key.storageKey() + ": its instance id " + Long.toHexString(owner) + " is not this process's "
          + Long.toHexString(instanceId));
    }
  }
}
