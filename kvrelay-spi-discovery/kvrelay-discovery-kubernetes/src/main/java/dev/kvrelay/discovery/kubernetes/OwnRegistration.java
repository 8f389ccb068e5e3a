package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (guarded by {@code lock}): the relay's own {@code DynamoWorkerMetadata} CR of one {@link
 * KubernetesDiscovery} ({@code runtime-inputs §3.5}) — its records, written whole by server-side apply (field
 * manager {@code dynamo-worker}, an ownerReference to the relay's pod) and deleted on close. A failed apply changes
 * nothing.
 */
final class OwnRegistration {
  // The backend's logger: operators configure one name for the whole backend.
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesDiscovery.class);

  private final KubeApi api;
  private final KubernetesDiscoveryOptions options;
  private final KubeCounters counters;
  private final AtomicBoolean closed;

  private final Object lock = new Object();
  private final TreeMap<DiscoveryKey, DiscoveryRecord> own = new TreeMap<>(DiscoveryKey.ORDER);
  private @Nullable String ownCrApplied;

  /** The registration of a backend; {@code closed} is the backend's flag. */
  OwnRegistration(KubeApi api, KubernetesDiscoveryOptions options, KubeCounters counters, AtomicBoolean closed) {
    this.api = api;
    this.options = options;
    this.counters = counters;
    this.closed = closed;
  }

  /** True once the backend is closed. */
  boolean closed() {
    return closed.get();
  }

  /** Counts a failed withdrawal of own records on close (logged by the caller). */
  void cleanupFailed() {
    counters.cleanupFailures.incrementAndGet();
  }

  /** As {@link KubernetesDiscovery#register}. */
  void register(Collection<? extends DiscoveryRecord> records) throws DiscoveryException {
    synchronized (lock) {
      TreeMap<DiscoveryKey, DiscoveryRecord> next = new TreeMap<>(own);
      for (DiscoveryRecord r : records) {
        next.put(r.key(), r);
      }
      apply(next);
    }
  }

  /** As {@link KubernetesDiscovery#unregister}. */
  void unregister(Collection<? extends DiscoveryKey> keys) throws DiscoveryException {
    synchronized (lock) {
      TreeMap<DiscoveryKey, DiscoveryRecord> next = new TreeMap<>(own);
      for (DiscoveryKey k : keys) {
        next.remove(k);
      }
      apply(next);
    }
  }

  /** The records of the relay's own CR, sorted by key. */
  List<DiscoveryRecord> registered() {
    synchronized (lock) {
      return List.copyOf(own.values());
    }
  }

  private void apply(SortedMap<DiscoveryKey, DiscoveryRecord> next) throws DiscoveryException {
    if (closed.get()) {
      throw KubeErrors.closed();
    }
    PodIdentity id = options.identity();
    String crName = id.crName(options.mode());
    String uid = id.requireUid();
    String namespace = api.namespace();
    GenericKubernetesResource cr = WorkerMetadataResource.ownCr(crName, namespace, Objects.requireNonNull(id.podName()),
        uid, next.values(), api.serialization());
    try {
      api.crs().resource(cr).fieldManager(WorkerMetadataResource.FIELD_MANAGER).forceConflicts().serverSideApply();
    } catch (KubernetesClientException e) {
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "server-side apply of DynamoWorkerMetadata "
          + namespace + "/" + crName + " failed: " + KubeErrors.describe(e), e);
    }
    own.clear();
    own.putAll(next);
    ownCrApplied = crName;
    counters.registrations.incrementAndGet();
    LOG.info("applied DynamoWorkerMetadata {}/{} with {} records", namespace, crName, next.size());
  }

  /** Deletes the own CR if one was applied (on close; a failure is counted and logged, the pod's GC removes it). */
  void deleteOwnCr() {
    synchronized (lock) {
      String crName = ownCrApplied;
      if (crName == null) {
        return;
      }
      String namespace = api.namespace();
      try {
        api.crs().withName(crName).delete();
        LOG.info("deleted DynamoWorkerMetadata {}/{}", namespace, crName);
      } catch (KubernetesClientException e) {
        counters.cleanupFailures.incrementAndGet();
        LOG.warn("could not delete DynamoWorkerMetadata {}/{} on shutdown ({}); the pod's garbage collection "
            + "removes it", namespace, crName, KubeErrors.describe(e));
      }
      ownCrApplied = null;
      own.clear();
    }
  }
}
