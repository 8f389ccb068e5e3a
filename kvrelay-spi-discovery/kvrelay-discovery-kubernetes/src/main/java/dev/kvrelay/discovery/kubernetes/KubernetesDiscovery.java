package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrar;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (all cluster state is confined to one state thread; registration is serialized by a lock):
 * the Kubernetes discovery backend ({@code runtime-inputs §3}).
 *
 * <p>Reading: it lists and then watches, in the relay's own namespace, the EndpointSlices (pod mode) or
 * Pods (container mode) carrying the two discovery labels, and every {@code DynamoWorkerMetadata} CR. A
 * watch event updates the cache and schedules a recompute {@code debounce} later (events inside the window
 * join it); the recompute joins ready members to CRs ({@link MembershipJoin}) and gives each watch the
 * per-key {@link DiscoveryDiff} of its scope as {@code onUpserted} / {@code onRemoved}. A CR whose {@code
 * spec.data} turns null or invalid keeps its last valid records; malformed entries are skipped, counted
 * and reported through {@code onError}.
 *
 * <p>Any lost watch (disconnect, server close, {@code 410 Gone}) is reported as {@code WATCH_INTERRUPTED};
 * the backend relists both resources (retrying with doubling delays), reopens the lost watch at the new
 * resource version and delivers {@code onResync} with the full state. Each new {@link #watch} also relists
 * first, so its snapshot holds every write acknowledged before the call. fabric8's own silent watch reconnect is off
 * ({@link #clientConfig}), because a resumed watch can miss deletions that happened while it was away.
 *
 * <p>Writing: {@link #register} server-side applies the relay's own CR (whole {@code spec.data}, an
 * ownerReference to its pod, field manager {@code dynamo-worker}); {@link #close()} deletes it.
 */
public final class KubernetesDiscovery implements DiscoveryBackend {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesDiscovery.class);
  private static final AtomicLong INSTANCES = new AtomicLong();

  /** The labels on the Services (and so their EndpointSlices) and Pods that take part in discovery. */
  public static final Map<String, String> DISCOVERY_LABELS = discoveryLabels();

  private static Map<String, String> discoveryLabels() {
    Map<String, String> labels = new java.util.LinkedHashMap<>(); // the seed's selector order
    labels.put("nvidia.com/dynamo-discovery-backend", "kubernetes");
    labels.put("nvidia.com/dynamo-discovery-enabled", "true");
    return java.util.Collections.unmodifiableMap(labels);
  }

  private final KubernetesClient client;
  private final boolean ownsClient;
  private final KubernetesDiscoveryOptions options;
  private final String namespace;
  private final String name;
  private final ScheduledExecutorService state;
  private final AtomicLong watchIds = new AtomicLong();
  private volatile boolean closed;

  // ---- confined to the state thread ----
  private final Map<String, EndpointSlice> slices = new HashMap<>();
  private final Map<String, Pod> pods = new HashMap<>();
  private Map<String, WorkerCr> crs = new HashMap<>();
  private Map<DiscoveryKey, DiscoveryRecord> current = Map.of();
  private final List<KubeWatch> watches = new ArrayList<>();
  private @Nullable Watch readinessWatch;
  private @Nullable Watch crWatch;
  private int readinessGen;
  private int crGen;
  private boolean resyncScheduled;
  private boolean recomputeScheduled;
  private boolean sessionLive;
  private final java.util.Set<String> hashWarned = new java.util.HashSet<>();
  private boolean resyncPending;
  private long retryDelayMs;
  private boolean noSliceWarned;

  // ---- counters (read from any thread) ----
  private final AtomicLong relists = new AtomicLong();
  private final AtomicLong watchInterruptions = new AtomicLong();
  private final AtomicLong goneRelists = new AtomicLong();
  private final AtomicLong recomputes = new AtomicLong();
  private final AtomicLong readyWithoutUid = new AtomicLong();
  private final AtomicLong ownerUidMismatches = new AtomicLong();
  private final AtomicLong invalidCrData = new AtomicLong();
  private final AtomicLong malformedEntries = new AtomicLong();
  private final AtomicLong hashMismatches = new AtomicLong();
  private final AtomicLong duplicateKeys = new AtomicLong();
  private final AtomicLong noEndpointSliceWarnings = new AtomicLong();
  private final AtomicLong registrations = new AtomicLong();

  // ---- own registration, guarded by regLock ----
  private final Object regLock = new Object();
  private final TreeMap<DiscoveryKey, DiscoveryRecord> own = new TreeMap<>(DiscoveryKey.ORDER);
  private @Nullable String ownCrApplied;

  private KubernetesDiscovery(KubernetesClient client, boolean ownsClient, KubernetesDiscoveryOptions options) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.options = options;
    this.namespace = options.identity().namespace();
    this.name = "kvrelay-k8s-discovery-" + INSTANCES.incrementAndGet();
    this.state = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
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
      d.state.submit(() -> {
        d.relist();
        return null;
      }).get();
    } catch (ExecutionException e) {
      d.close();
      Throwable cause = e.getCause();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "cannot list EndpointSlices/Pods and "
          + "DynamoWorkerMetadata in namespace " + options.identity().namespace() + ": " + describe(cause), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      d.close();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted while listing", e);
    }
    LOG.info("kubernetes discovery started: namespace {}, mode {}, {} CRs, {} records", d.namespace,
        options.mode(), d.crs.size(), d.current.size());
    return d;
  }

  /** The options this backend runs with. */
  public KubernetesDiscoveryOptions options() {
    return options;
  }

  /** A snapshot of the counters. */
  public KubernetesDiscoveryStats stats() {
    return new KubernetesDiscoveryStats(relists.get(), watchInterruptions.get(), goneRelists.get(),
        recomputes.get(), readyWithoutUid.get(), ownerUidMismatches.get(), invalidCrData.get(),
        malformedEntries.get(), hashMismatches.get(), duplicateKeys.get(), noEndpointSliceWarnings.get(),
        registrations.get());
  }

  // ---------------------------------------------------------------- watching (SPI)

  @Override
  public DiscoveryWatch watch(DiscoveryScope scope, DiscoveryListener listener) throws DiscoveryException {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(listener, "listener");
    if (closed) {
      throw closedException();
    }
    KubeWatch w = new KubeWatch(scope, listener, name + "-watch-" + watchIds.incrementAndGet(),
        closedWatch -> post(() -> watches.remove(closedWatch)));
    Future<?> added;
    try {
      added = state.submit(() -> startWatch(w));
    } catch (RejectedExecutionException e) {
      w.close();
      throw closedException();
    }
    try {
      added.get();
    } catch (ExecutionException e) {
      w.close();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "cannot start the watch: "
          + describe(e.getCause()), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      w.close();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted while starting a watch", e);
    }
    return w;
  }

  /**
   * Relists before the new watch's snapshot, so that it holds every write acknowledged before {@link #watch}
   * (the caches may lag by a debounce and by events in flight); existing watches get the diff as usual. The
   * running cluster watches go on (closing and reopening them per new watch would be wasteful).
   */
  private void startWatch(KubeWatch w) {
    watches.add(w);
    try {
      relist();
    } catch (RuntimeException e) {
      watches.remove(w);
      sessionBroken("a relist for a new watch failed: " + describe(e), null, "relist");
      throw e;
    }
  }

  private static DiscoveryException closedException() {
    return new DiscoveryException(DiscoveryException.Kind.CLOSED, "the kubernetes discovery backend is closed");
  }

  /** Runs {@code task} on the state thread; dropped once the backend is closed. */
  private void post(Runnable task) {
    try {
      state.execute(task);
    } catch (RejectedExecutionException e) {
      // closed: nothing more happens
    }
  }

  // ---------------------------------------------------------------- sessions (state thread)

  private FilterWatchListDeletable<EndpointSlice, EndpointSliceList, Resource<EndpointSlice>> sliceOp() {
    return client.discovery().v1().endpointSlices().inNamespace(namespace).withLabels(DISCOVERY_LABELS);
  }

  private FilterWatchListDeletable<Pod, PodList, PodResource> podOp() {
    return client.pods().inNamespace(namespace).withLabels(DISCOVERY_LABELS);
  }

  private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList,
      Resource<GenericKubernetesResource>> crOp() {
    return client.genericKubernetesResources(WorkerMetadataResource.CONTEXT).inNamespace(namespace);
  }

  /**
   * Lists both resources, replaces the caches, (re)opens the watches that are not running at the listed
   * versions and recomputes (a resync for every watch if one was lost).
   *
   * <p>A watch that kept running across the list may still deliver events older than the list; replaying an
   * ordered suffix of one object's events over a newer snapshot converges to the same state, and an event
   * whose numeric resource version is below the cached object's is skipped ({@link #isStale}).
   */
  private void relist() {
    String readinessVersion;
    if (options.mode() == ReadinessMode.POD) {
      EndpointSliceList list = sliceOp().list();
      Map<String, EndpointSlice> before = new HashMap<>(slices);
      slices.clear();
      for (EndpointSlice s : list.getItems()) {
        slices.put(s.getMetadata().getName(), s);
        countSliceWithoutUid(s, before.get(s.getMetadata().getName()));
      }
      readinessVersion = list.getMetadata().getResourceVersion();
    } else {
      PodList list = podOp().list();
      Map<String, Pod> before = new HashMap<>(pods);
      pods.clear();
      for (Pod p : list.getItems()) {
        pods.put(p.getMetadata().getName(), p);
        countPodWithoutUid(p, before.get(p.getMetadata().getName()));
      }
      readinessVersion = list.getMetadata().getResourceVersion();
    }
    GenericKubernetesResourceList crList = crOp().list();
    Map<String, WorkerCr> fresh = new HashMap<>();
    for (GenericKubernetesResource item : crList.getItems()) {
      WorkerCr previous = crs.get(item.getMetadata().getName());
      WorkerCr cr = WorkerMetadataResource.read(item, previous, client.getKubernetesSerialization());
      account(cr, previous);
      fresh.put(cr.name(), cr);
    }
    crs = fresh;
    relists.incrementAndGet();

    if (readinessWatch == null) {
      int gen = ++readinessGen;
      readinessWatch = options.mode() == ReadinessMode.POD
          ? sliceOp().watch(at(readinessVersion), new Forwarder<EndpointSlice>(gen, true, "EndpointSlice", this::onSlice))
          : podOp().watch(at(readinessVersion), new Forwarder<Pod>(gen, true, "Pod", this::onPod));
    }
    if (crWatch == null) {
      int gen = ++crGen;
      crWatch = crOp().watch(at(crList.getMetadata().getResourceVersion()),
          new Forwarder<GenericKubernetesResource>(gen, false, WorkerMetadataResource.KIND, this::onCr));
    }
    sessionLive = true;
    recompute();
  }

  private static ListOptions at(@Nullable String resourceVersion) {
    return new ListOptionsBuilder().withResourceVersion(resourceVersion).withAllowWatchBookmarks(true).build();
  }

  /** Thread-safe: forwards one cluster watch's callbacks to the state thread, tagged with its generation. */
  private final class Forwarder<T> implements Watcher<T> {
    private final int gen;
    private final boolean readiness;
    private final String what;
    private final BiConsumer<Action, T> apply;

    Forwarder(int gen, boolean readiness, String what, BiConsumer<Action, T> apply) {
      this.gen = gen;
      this.readiness = readiness;
      this.what = what;
      this.apply = apply;
    }

    private boolean current() {
      return !closed && gen == (readiness ? readinessGen : crGen);
    }

    @Override
    public void eventReceived(Action action, T resource) {
      if (action == Action.BOOKMARK || action == Action.ERROR) {
        return;
      }
      post(() -> {
        if (current()) {
          apply.accept(action, resource);
          scheduleRecompute();
        }
      });
    }

    @Override
    public void onClose(WatcherException cause) {
      post(() -> {
        if (current()) {
          watchLost(readiness, what, cause);
        }
      });
    }

    @Override
    public void onClose() {
      // closed by this backend (close())
    }

    @Override
    public boolean reconnecting() {
      return false;
    }
  }

  /**
   * True if {@code event} is older than {@code cached} by numeric resource version (both parse as unsigned
   * decimals, as etcd revisions do; otherwise nothing is skipped).
   */
  static boolean isStale(HasMetadata event, @Nullable HasMetadata cached) {
    if (cached == null || !Objects.equals(event.getMetadata().getUid(), cached.getMetadata().getUid())) {
      return false;
    }
    try {
      return Long.compareUnsigned(Long.parseUnsignedLong(event.getMetadata().getResourceVersion()),
          Long.parseUnsignedLong(cached.getMetadata().getResourceVersion())) < 0;
    } catch (NumberFormatException | NullPointerException e) {
      return false;
    }
  }

  private void onSlice(Watcher.Action action, EndpointSlice s) {
    EndpointSlice cached = slices.get(s.getMetadata().getName());
    if (isStale(s, cached)) {
      return;
    }
    if (action == Watcher.Action.DELETED) {
      slices.remove(s.getMetadata().getName());
    } else {
      countSliceWithoutUid(s, slices.put(s.getMetadata().getName(), s));
    }
  }

  private void onPod(Watcher.Action action, Pod p) {
    if (isStale(p, pods.get(p.getMetadata().getName()))) {
      return;
    }
    if (action == Watcher.Action.DELETED) {
      pods.remove(p.getMetadata().getName());
    } else {
      countPodWithoutUid(p, pods.put(p.getMetadata().getName(), p));
    }
  }

  private void onCr(Watcher.Action action, GenericKubernetesResource item) {
    String crName = item.getMetadata().getName();
    WorkerCr previous = crs.get(crName);
    if (previous != null && previous.uid().equals(item.getMetadata().getUid())
        && olderVersion(item.getMetadata().getResourceVersion(), previous.resourceVersion())) {
      return;
    }
    if (action == Watcher.Action.DELETED) {
      crs.remove(crName);
      return;
    }
    WorkerCr cr = WorkerMetadataResource.read(item, previous, client.getKubernetesSerialization());
    account(cr, previous);
    crs.put(crName, cr);
  }

  private static boolean olderVersion(@Nullable String event, String cached) {
    try {
      return event != null && Long.compareUnsigned(Long.parseUnsignedLong(event), Long.parseUnsignedLong(cached)) < 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Counts, logs and reports what is wrong with a new CR version (once per resource version). */
  private void account(WorkerCr cr, @Nullable WorkerCr previous) {
    if (previous != null && previous.uid().equals(cr.uid()) && previous.resourceVersion().equals(cr.resourceVersion())) {
      return;
    }
    if (!cr.currentDataValid()) {
      invalidCrData.incrementAndGet();
      LOG.warn("DynamoWorkerMetadata {}/{} (resourceVersion {}) has null or invalid spec.data; {}", namespace,
          cr.name(), cr.resourceVersion(), cr.records() == null ? "it has no valid data yet and is skipped"
              : "its last valid data (" + cr.records().size() + " records) is kept");
    }
    for (DiscoveryDecodeException e : cr.skipped()) {
      malformedEntries.incrementAndGet();
      LOG.warn("DynamoWorkerMetadata {}/{}: malformed entry skipped: {}", namespace, cr.name(), e.getMessage());
    }
    int mismatches = WorkerMetadataResource.hashMismatches(cr);
    if (mismatches > 0 && cr.currentDataValid()) {
      hashMismatches.addAndGet(mismatches);
    }
    if (mismatches > 0 && cr.currentDataValid() && hashWarned.add(cr.name() + "/" + cr.uid())) {
      LOG.warn("DynamoWorkerMetadata {}/{}: {} records carry an instance id other than hash(cr name) = {}; "
          + "the ids in spec.data are used", namespace, cr.name(), mismatches,
          Long.toHexString(InstanceIdHash.instanceId(cr.name())));
    }
    for (KubeWatch w : watches) {
      if (w.snapshotSent) {
        for (DiscoveryDecodeException e : cr.skipped()) {
          w.post(l -> l.onError(e));
        }
      }
    }
  }

  private static boolean sameVersion(io.fabric8.kubernetes.api.model.HasMetadata now,
      io.fabric8.kubernetes.api.model.@Nullable HasMetadata before) {
    return before != null && Objects.equals(before.getMetadata().getUid(), now.getMetadata().getUid())
        && Objects.equals(before.getMetadata().getResourceVersion(), now.getMetadata().getResourceVersion());
  }

  /** Counts and logs the ready endpoints of a new slice version that have no Pod uid. */
  private void countSliceWithoutUid(EndpointSlice s, @Nullable EndpointSlice before) {
    if (sameVersion(s, before)) {
      return;
    }
    int n = 0;
    for (Endpoint e : nonNull(s.getEndpoints())) {
      if (isReady(e) && podUid(e) == null) {
        n++;
      }
    }
    if (n > 0) {
      readyWithoutUid.addAndGet(n);
      LOG.warn("EndpointSlice {}/{} (resourceVersion {}): {} ready endpoints without a Pod targetRef uid are "
          + "skipped", namespace, s.getMetadata().getName(), s.getMetadata().getResourceVersion(), n);
    }
  }

  private void countPodWithoutUid(Pod p, @Nullable Pod before) {
    if (sameVersion(p, before)) {
      return;
    }
    String uid = p.getMetadata().getUid();
    if (uid == null || uid.isEmpty()) {
      readyWithoutUid.incrementAndGet();
      LOG.warn("Pod {}/{} has no metadata.uid and is skipped", namespace, p.getMetadata().getName());
    }
  }

  private static boolean isReady(Endpoint e) {
    return e.getConditions() != null && Boolean.TRUE.equals(e.getConditions().getReady());
  }

  private static @Nullable String podUid(Endpoint e) {
    ObjectReference ref = e.getTargetRef();
    if (ref == null || (ref.getKind() != null && !ref.getKind().equals("Pod"))
        || ref.getName() == null || ref.getName().isEmpty() || ref.getUid() == null || ref.getUid().isEmpty()) {
      return null;
    }
    return ref.getUid();
  }

  private static <T> List<T> nonNull(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }

  private List<ReadyMember> readyMembers() {
    List<ReadyMember> out = new ArrayList<>();
    if (options.mode() == ReadinessMode.POD) {
      for (EndpointSlice s : slices.values()) {
        for (Endpoint e : nonNull(s.getEndpoints())) {
          String uid = podUid(e);
          if (isReady(e) && uid != null) {
            out.add(new ReadyMember(e.getTargetRef().getName(), uid));
          }
        }
      }
    } else {
      for (Pod p : pods.values()) {
        String uid = p.getMetadata().getUid();
        if (uid == null || uid.isEmpty() || p.getStatus() == null) {
          continue;
        }
        for (ContainerStatus c : nonNull(p.getStatus().getContainerStatuses())) {
          if (Boolean.TRUE.equals(c.getReady()) && c.getName() != null && !c.getName().isEmpty()) {
            out.add(new ReadyMember(ReadinessMode.containerCrName(p.getMetadata().getName(), c.getName()), uid));
          }
        }
      }
    }
    return out;
  }

  private void watchLost(boolean readiness, String what, @Nullable WatcherException cause) {
    if (readiness) {
      readinessGen++; // its late events are ignored from now on
      closeQuietly(readinessWatch);
      readinessWatch = null;
    } else {
      crGen++;
      closeQuietly(crWatch);
      crWatch = null;
    }
    watchInterruptions.incrementAndGet();
    boolean gone = cause != null && cause.isHttpGone();
    if (gone) {
      goneRelists.incrementAndGet();
    }
    sessionBroken(gone ? "410 Gone (resource version expired)" : describe(cause), cause, what);
  }

  /** Reports the interruption to every watch and schedules the relist that ends with a resync. */
  private void sessionBroken(String why, @Nullable Throwable cause, String what) {
    sessionLive = false;
    LOG.warn("kubernetes discovery lost its {} watch in namespace {}: {}; relisting", what, namespace, why);
    DiscoveryException error = new DiscoveryException(DiscoveryException.Kind.WATCH_INTERRUPTED,
        "the " + what + " watch was lost (" + why + "); relisting", cause);
    for (KubeWatch w : watches) {
      if (w.snapshotSent) {
        w.post(l -> l.onError(error));
      }
    }
    resyncPending = true;
    if (!resyncScheduled) {
      resyncScheduled = true;
      retryDelayMs = options.retryMin().toMillis();
      schedule(this::resyncAttempt, cause instanceof WatcherException watcherException && watcherException.isHttpGone()
          ? 0 : retryDelayMs);
    }
  }

  private void resyncAttempt() {
    resyncScheduled = false;
    if (closed || (sessionLive && !resyncPending)) {
      return;
    }
    try {
      relist();
      LOG.info("kubernetes discovery relisted namespace {}: {} CRs, {} records", namespace, crs.size(),
          current.size());
    } catch (RuntimeException e) {
      sessionLive = false;
      retryDelayMs = Math.min(Math.max(1, retryDelayMs * 2), options.retryMax().toMillis());
      LOG.warn("kubernetes discovery relist in namespace {} failed ({}); retrying in {} ms", namespace,
          describe(e), retryDelayMs);
      resyncScheduled = true;
      schedule(this::resyncAttempt, retryDelayMs);
    }
  }

  private void schedule(Runnable task, long delayMs) {
    try {
      // The future is not needed: the task logs what it throws (else kept in a future nobody reads), and close()
      // ends the executor.
      ScheduledFuture<?> unused = state.schedule(() -> {
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.warn("kubernetes discovery task in namespace {} threw; it is dropped", namespace, e);
        }
      }, delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private void stopClusterWatches() {
    readinessGen++;
    crGen++;
    closeQuietly(readinessWatch);
    closeQuietly(crWatch);
    readinessWatch = null;
    crWatch = null;
  }

  private static void closeQuietly(@Nullable Watch w) {
    if (w == null) {
      return;
    }
    try {
      w.close();
    } catch (RuntimeException e) {
      LOG.debug("closing a cluster watch failed", e);
    }
  }

  private void scheduleRecompute() {
    if (recomputeScheduled) {
      return;
    }
    recomputeScheduled = true;
    schedule(() -> {
      recomputeScheduled = false;
      if (!closed && sessionLive) { // a broken session's caches are stale: the relist recomputes
        recompute();
      }
    }, options.debounce().toMillis());
  }

  /** Joins, then brings every watch up to date (a resync after a relist, else per-key diffs). */
  private void recompute() {
    recomputes.incrementAndGet();
    List<ReadyMember> ready = readyMembers();
    MembershipJoin.Result r = MembershipJoin.join(ready, crs);
    gauge(ownerUidMismatches, r.ownerMismatches(), "ready members whose CR is owned by another pod uid");
    gauge(duplicateKeys, r.duplicateKeys(), "records dropped because another CR has the same key");
    if (options.mode() == ReadinessMode.POD && !crs.isEmpty() && r.matchedCrs().isEmpty()) {
      if (!noSliceWarned) {
        noSliceWarned = true;
        noEndpointSliceWarnings.incrementAndGet();
        LOG.warn("{} DynamoWorkerMetadata CRs exist in namespace {} but no ready EndpointSlice endpoint labelled "
            + "{} matches one: are the worker Services labelled (runtime-inputs §11 Q14)?", crs.size(), namespace,
            DISCOVERY_LABELS);
      }
    } else {
      noSliceWarned = false;
    }
    current = r.records();
    boolean resync = resyncPending;
    resyncPending = false;
    for (KubeWatch w : watches) {
      deliver(w, resync);
    }
  }

  /** Logs when a "currently skipped" count changes; the stat holds the latest value. */
  private void gauge(AtomicLong stat, int value, String what) {
    long before = stat.getAndSet(value);
    if (before != value && value > 0) {
      LOG.warn("kubernetes discovery in namespace {}: {} {}", namespace, value, what);
    }
  }

  private void deliver(KubeWatch w, boolean resync) {
    List<DiscoveryRecord> inScope = new ArrayList<>();
    for (DiscoveryRecord rec : current.values()) {
      if (w.scope().matches(rec)) {
        inScope.add(rec);
      }
    }
    if (!w.snapshotSent || resync) {
      boolean first = !w.snapshotSent;
      w.snapshotSent = true;
      w.known.clear();
      for (DiscoveryRecord rec : inScope) {
        w.known.put(rec.key(), rec);
      }
      List<DiscoveryRecord> copy = List.copyOf(inScope);
      if (first) {
        w.post(l -> l.onSnapshot(copy));
        for (WorkerCr cr : new TreeMap<>(crs).values()) {
          for (DiscoveryDecodeException e : cr.skipped()) {
            w.post(l -> l.onError(e));
          }
        }
      } else {
        w.post(l -> l.onResync(copy));
      }
      return;
    }
    DiscoveryDiff diff = DiscoveryDiff.between(w.known, inScope);
    for (DiscoveryRecord rec : diff.upserted()) {
      w.known.put(rec.key(), rec);
      w.post(l -> l.onUpserted(rec));
    }
    for (DiscoveryKey k : diff.removed()) {
      w.known.remove(k);
      w.post(l -> l.onRemoved(k));
    }
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
    synchronized (regLock) {
      TreeMap<DiscoveryKey, DiscoveryRecord> next = new TreeMap<>(own);
      for (DiscoveryRecord r : records) {
        next.put(r.key(), r);
      }
      applyOwn(next);
    }
  }

  /**
   * Removes records of the relay's own and server-side applies the CR with the whole remaining {@code
   * spec.data} (unknown keys are ignored). On failure nothing changes.
   *
   * @throws DiscoveryException as {@link #register}
   */
  public void unregister(Collection<? extends DiscoveryKey> keys) throws DiscoveryException {
    synchronized (regLock) {
      TreeMap<DiscoveryKey, DiscoveryRecord> next = new TreeMap<>(own);
      for (DiscoveryKey k : keys) {
        next.remove(k);
      }
      applyOwn(next);
    }
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
    if (closed) {
      throw closedException();
    }
    if (options.identity().podName() == null) {
      throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
          "registration needs the pod name (POD_NAME or /etc/podinfo/name)");
    }
    return new CrRegistrar(InstanceIdHash.instanceId(options.identity().crName(options.mode())));
  }

  /** Thread-safe (synchronized): the keys one {@link #registrar()} put into the relay's own CR. */
  private final class CrRegistrar implements DiscoveryRegistrar {
    private final long instanceId;
    private final java.util.Set<DiscoveryKey> owned = new java.util.LinkedHashSet<>();
    private boolean registrarClosed;

    CrRegistrar(long instanceId) {
      this.instanceId = instanceId;
    }

    @Override
    public long instanceId() {
      return instanceId;
    }

    @Override
    public synchronized void register(DiscoveryRecord record) throws DiscoveryException {
      checkOpen();
      DiscoveryRegistrar.requireOwnedBy(instanceId, record.key());
      KubernetesDiscovery.this.register(List.of(record));
      owned.add(record.key());
    }

    @Override
    public synchronized boolean deregister(DiscoveryKey key) throws DiscoveryException {
      checkOpen();
      if (!owned.contains(key)) {
        return false;
      }
      unregister(List.of(key));
      owned.remove(key);
      return true;
    }

    private void checkOpen() throws DiscoveryException {
      if (registrarClosed || closed) {
        throw closedException();
      }
    }

    @Override
    public synchronized void close() {
      if (registrarClosed) {
        return;
      }
      registrarClosed = true;
      if (owned.isEmpty() || closed) {
        return;
      }
      try {
        unregister(List.copyOf(owned));
      } catch (DiscoveryException e) {
        LOG.warn("could not withdraw {} own records on close: {}", owned.size(), e.getMessage());
      }
      owned.clear();
    }
  }

  /** The records of the relay's own CR, sorted by key. */
  public List<DiscoveryRecord> registered() {
    synchronized (regLock) {
      return List.copyOf(own.values());
    }
  }

  private void applyOwn(SortedMap<DiscoveryKey, DiscoveryRecord> next) throws DiscoveryException {
    if (closed) {
      throw closedException();
    }
    PodIdentity id = options.identity();
    String crName = id.crName(options.mode());
    String uid = id.requireUid();
    GenericKubernetesResource cr = WorkerMetadataResource.ownCr(crName, namespace, Objects.requireNonNull(id.podName()),
        uid, next.values(), client.getKubernetesSerialization());
    try {
      crOp().resource(cr).fieldManager(WorkerMetadataResource.FIELD_MANAGER).forceConflicts().serverSideApply();
    } catch (KubernetesClientException e) {
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "server-side apply of DynamoWorkerMetadata "
          + namespace + "/" + crName + " failed: " + describe(e), e);
    }
    own.clear();
    own.putAll(next);
    ownCrApplied = crName;
    registrations.incrementAndGet();
    LOG.info("applied DynamoWorkerMetadata {}/{} with {} records", namespace, crName, next.size());
  }

  private void deleteOwnCr() {
    synchronized (regLock) {
      String crName = ownCrApplied;
      if (crName == null) {
        return;
      }
      try {
        crOp().withName(crName).delete();
        LOG.info("deleted DynamoWorkerMetadata {}/{}", namespace, crName);
      } catch (KubernetesClientException e) {
        LOG.warn("could not delete DynamoWorkerMetadata {}/{} on shutdown ({}); the pod's garbage collection "
            + "removes it", namespace, crName, describe(e));
      }
      ownCrApplied = null;
      own.clear();
    }
  }

  // ---------------------------------------------------------------- shutdown

  /** Deletes the relay's own CR (if registered), stops every watch and closes an owned client. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    deleteOwnCr();
    Future<List<KubeWatch>> stopped;
    try {
      stopped = state.submit(() -> {
        stopClusterWatches();
        return List.copyOf(watches);
      });
    } catch (RejectedExecutionException e) {
      stopped = null;
    }
    List<KubeWatch> toClose = List.of();
    if (stopped != null) {
      try {
        toClose = stopped.get(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        LOG.warn("kubernetes discovery did not stop its watches cleanly", e);
      }
    }
    for (KubeWatch w : toClose) {
      w.close();
    }
    state.shutdownNow();
    if (ownsClient) {
      client.close();
    }
  }

  private static String describe(@Nullable Throwable t) {
    if (t == null) {
      return "closed by the server";
    }
    if (t instanceof KubernetesClientException kubernetesClientException && kubernetesClientException.getCode() > 0) {
      return "HTTP " + kubernetesClientException.getCode() + " " + t.getMessage();
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
