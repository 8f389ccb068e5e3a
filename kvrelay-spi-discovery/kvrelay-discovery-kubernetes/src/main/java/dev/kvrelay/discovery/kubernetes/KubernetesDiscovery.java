package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrar;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread-safe (all cluster state is confined to one state thread; registration is serialized by a lock):
 * the Kubernetes discovery backend ({@code runtime-inputs §3}).
 *
 * <p>Reading ({@link ClusterSession}): it lists and then watches, in the relay's own namespace, the EndpointSlices
 * (pod mode) or Pods (container mode) carrying the two discovery labels, and every {@code DynamoWorkerMetadata} CR. A
 * watch event updates the cache ({@link ClusterCache}) and schedules a recompute {@code debounce} later (events inside
 * the window join it); the recompute joins ready members to CRs ({@link MembershipJoin}) and gives each watch the
 * per-key {@link DiscoveryDiff} of its scope as {@code onUpserted} / {@code onRemoved} ({@link WatchFanout}). A CR
 * whose {@code spec.data} turns null or invalid keeps its last valid records; malformed entries are skipped, counted
 * and reported through {@code onError}.
 *
 * <p>Any lost watch (disconnect, server close, {@code 410 Gone}) is reported as {@code WATCH_INTERRUPTED};
 * the backend relists both resources (retrying with doubling delays), reopens the lost watch at the new
 * resource version and delivers {@code onResync} with the full state. Each new {@link #watch} also relists
 * first, so its snapshot holds every write acknowledged before the call. fabric8's own silent watch reconnect is off
 * ({@link #clientConfig}), because a resumed watch can miss deletions that happened while it was away. Every failure
 * of a background task (lost watch, failed relist, task or listener that threw) is counted in {@link #stats()}.
 *
 * <p>Writing ({@link OwnRegistration}): {@link #register} server-side applies the relay's own CR (whole {@code
 * spec.data}, an ownerReference to its pod, field manager {@code dynamo-worker}); {@link #close()} deletes it.
 */
public final class KubernetesDiscovery implements DiscoveryBackend {
  private static final AtomicLong INSTANCES = new AtomicLong();

  /** The labels on the Services (and so their EndpointSlices) and Pods that take part in discovery. */
  public static final Map<String, String> DISCOVERY_LABELS = discoveryLabels();

  private static Map<String, String> discoveryLabels() {
    Map<String, String> labels = new LinkedHashMap<>(); // the seed's selector order
    labels.put("nvidia.com/dynamo-discovery-backend", "kubernetes");
    labels.put("nvidia.com/dynamo-discovery-enabled", "true");
    return Collections.unmodifiableMap(labels);
  }

  private final KubernetesClient client;
  private final boolean ownsClient;
  private final KubernetesDiscoveryOptions options;
  private final String name;
  private final AtomicLong watchIds = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final KubeCounters counters = new KubeCounters();
  private final ClusterSession session;
  private final OwnRegistration registration;

  private KubernetesDiscovery(KubernetesClient client, boolean ownsClient, KubernetesDiscoveryOptions options) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.options = options;
    this.name = "kvrelay-k8s-discovery-" + INSTANCES.incrementAndGet();
    KubeApi api = new KubeApi(client, options.identity().namespace());
    this.session = new ClusterSession(api, options, counters, closed, name);
    this.registration = new OwnRegistration(api, options, counters, closed);
  }

  /**
   * The client settings this backend needs on top of {@code base}: fabric8's transparent watch reconnect
   * off (every lost watch surfaces, so the backend relists) and at most one HTTP retry per request (the
   * backend retries relists itself).
   */
  public static Config clientConfig(Config base) {
    return new ConfigBuilder(base).withWatchReconnectLimit(0).withRequestRetryBackoffLimit(1).build();
  }

  /**
   * Lists the cluster state (synchronously) and starts watching. The client should be built from {@link
   * #clientConfig}; it is closed with the backend if {@code ownsClient}.
   *
   * @throws DiscoveryException {@code UNAVAILABLE} if the first list fails (the client is then closed if owned)
   */
  public static KubernetesDiscovery start(KubernetesClient client, KubernetesDiscoveryOptions options,
      boolean ownsClient) throws DiscoveryException {
    KubernetesDiscovery d = new KubernetesDiscovery(client, ownsClient, options);
    try {
      d.session.open();
    } catch (ExecutionException e) {
      d.close();
      Throwable cause = e.getCause();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "cannot list EndpointSlices/Pods and "
          + "DynamoWorkerMetadata in namespace " + options.identity().namespace() + ": " + KubeErrors.describe(cause),
          cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      d.close();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted while listing", e);
    }
    return d;
  }

  /** The options this backend runs with. */
  public KubernetesDiscoveryOptions options() {
    return options;
  }

  /** A snapshot of the counters. */
  public KubernetesDiscoveryStats stats() {
    return counters.snapshot();
  }

  // ---------------------------------------------------------------- watching (SPI)

  /**
   * {@inheritDoc}
   *
   * <p>Relists before the new watch's snapshot, so that it holds every write acknowledged before this call.
   */
  @Override
  public DiscoveryWatch watch(DiscoveryScope scope, DiscoveryListener listener) throws DiscoveryException {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(listener, "listener");
    if (closed.get()) {
      throw KubeErrors.closed();
    }
    KubeWatch w = new KubeWatch(scope, listener, name + "-watch-" + watchIds.incrementAndGet(), session::removeWatch,
        counters.listenerFailures);
    Future<?> added;
    try {
      added = session.addWatch(w);
    } catch (RejectedExecutionException e) {
      w.close();
      throw KubeErrors.closed();
    }
    try {
      added.get();
    } catch (ExecutionException e) {
      w.close();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "cannot start the watch: "
          + KubeErrors.describe(e.getCause()), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      w.close();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted while starting a watch", e);
    }
    return w;
  }

  // ---------------------------------------------------------------- registration

  /**
   * Adds (or replaces) records of the relay's own runtime endpoints and server-side applies its CR with the
   * whole new {@code spec.data}. On failure nothing changes.
   *
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} if the pod identity is incomplete, {@code
   *     UNAVAILABLE} if the apply fails, {@code CLOSED} after close
   */
  public void register(Collection<? extends DiscoveryRecord> records) throws DiscoveryException {
    registration.register(records);
  }

  /**
   * Removes records of the relay's own and server-side applies the CR with the whole remaining {@code
   * spec.data} (unknown keys are ignored). On failure nothing changes.
   *
   * @throws DiscoveryException as {@link #register}
   */
  public void unregister(Collection<? extends DiscoveryKey> keys) throws DiscoveryException {
    registration.unregister(keys);
  }

  /**
   * A registration through the relay's own CR ({@link #register} / {@link #unregister}); its instance id is the hash
   * of the CR name ({@code runtime-inputs.md} §3.4). Closing it withdraws what it registered.
   *
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} if the pod identity lacks a name, {@code CLOSED} after
   *     close
   */
  @Override
  public DiscoveryRegistrar registrar() throws DiscoveryException {
    if (closed.get()) {
      throw KubeErrors.closed();
    }
    if (options.identity().podName() == null) {
      throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
          "registration needs the pod name (POD_NAME or /etc/podinfo/name)");
    }
    return new CrRegistrar(InstanceIdHash.instanceId(options.identity().crName(options.mode())), registration);
  }

  /** The records of the relay's own CR, sorted by key. */
  public List<DiscoveryRecord> registered() {
    return registration.registered();
  }

  // ---------------------------------------------------------------- shutdown

  /** Deletes the relay's own CR (if registered), stops every watch and closes an owned client. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    registration.deleteOwnCr();
    session.close();
    if (ownsClient) {
      client.close();
    }
  }
}
