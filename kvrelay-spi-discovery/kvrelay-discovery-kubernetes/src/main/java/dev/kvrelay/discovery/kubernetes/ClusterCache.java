package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: confined to the backend's state thread. The cached cluster objects of one {@link
 * KubernetesDiscovery} — the labelled EndpointSlices (pod mode) or Pods (container mode) and every {@code
 * DynamoWorkerMetadata} CR (as {@link WorkerCr}) — and their projection to {@link ReadyMember}s joined with the CRs
 * ({@link #join}). What is wrong with a new object version is counted and logged once per version; the malformed
 * entries of a new CR version also go to {@code reportSkipped}.
 */
final class ClusterCache {
  // The backend's logger: operators configure one name for the whole backend.
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesDiscovery.class);

  private final ReadinessMode mode;
  private final String namespace;
  private final KubernetesSerialization serialization;
  private final KubeCounters counters;
  private final Consumer<DiscoveryDecodeException> reportSkipped;

  private final Map<String, EndpointSlice> slices = new HashMap<>();
  private final Map<String, Pod> pods = new HashMap<>();
  private Map<String, WorkerCr> crs = new HashMap<>();
  private final Set<String> hashWarned = new HashSet<>();
  private boolean noSliceWarned;

  ClusterCache(ReadinessMode mode, String namespace, KubernetesSerialization serialization, KubeCounters counters,
      Consumer<DiscoveryDecodeException> reportSkipped) {
    this.mode = mode;
    this.namespace = namespace;
    this.serialization = serialization;
    this.counters = counters;
    this.reportSkipped = reportSkipped;
  }

  /** The cached CRs by name (a read-only view). */
  Map<String, WorkerCr> crs() {
    return Collections.unmodifiableMap(crs);
  }

  // ---------------------------------------------------------------- lists

  /** Replaces the cached EndpointSlices by a list's; returns its resource version. */
  @Nullable String replaceSlices(EndpointSliceList list) {
    Map<String, EndpointSlice> before = new HashMap<>(slices);
    slices.clear();
    for (EndpointSlice s : list.getItems()) {
      slices.put(s.getMetadata().getName(), s);
      countSliceWithoutUid(s, before.get(s.getMetadata().getName()));
    }
    return list.getMetadata().getResourceVersion();
  }

  /** Replaces the cached Pods by a list's; returns its resource version. */
  @Nullable String replacePods(PodList list) {
    Map<String, Pod> before = new HashMap<>(pods);
    pods.clear();
    for (Pod p : list.getItems()) {
      pods.put(p.getMetadata().getName(), p);
      countPodWithoutUid(p, before.get(p.getMetadata().getName()));
    }
    return list.getMetadata().getResourceVersion();
  }

  /** Replaces the cached CRs by a list's (keeping each one's last valid data); returns its resource version. */
  @Nullable String replaceCrs(GenericKubernetesResourceList list) {
    Map<String, WorkerCr> fresh = new HashMap<>();
    for (GenericKubernetesResource item : list.getItems()) {
      WorkerCr previous = crs.get(item.getMetadata().getName());
      WorkerCr cr = WorkerMetadataResource.read(item, previous, serialization);
      account(cr, previous);
      fresh.put(cr.name(), cr);
    }
    crs = fresh;
    return list.getMetadata().getResourceVersion();
  }

  // ---------------------------------------------------------------- watch events

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

  void onSlice(Watcher.Action action, EndpointSlice s) {
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

  void onPod(Watcher.Action action, Pod p) {
    if (isStale(p, pods.get(p.getMetadata().getName()))) {
      return;
    }
    if (action == Watcher.Action.DELETED) {
      pods.remove(p.getMetadata().getName());
    } else {
      countPodWithoutUid(p, pods.put(p.getMetadata().getName(), p));
    }
  }

  void onCr(Watcher.Action action, GenericKubernetesResource item) {
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
    WorkerCr cr = WorkerMetadataResource.read(item, previous, serialization);
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

  // ---------------------------------------------------------------- accounting

  /** Counts, logs and reports what is wrong with a new CR version (once per resource version). */
  private void account(WorkerCr cr, @Nullable WorkerCr previous) {
    if (previous != null && previous.uid().equals(cr.uid()) && previous.resourceVersion().equals(cr.resourceVersion())) {
      return;
    }
    if (!cr.currentDataValid()) {
      counters.invalidCrData.incrementAndGet();
      LOG.warn("DynamoWorkerMetadata {}/{} (resourceVersion {}) has null or invalid spec.data; {}", namespace,
          cr.name(), cr.resourceVersion(), cr.records() == null ? "it has no valid data yet and is skipped"
              : "its last valid data (" + cr.records().size() + " records) is kept");
    }
    for (DiscoveryDecodeException e : cr.skipped()) {
      counters.malformedEntries.incrementAndGet();
      LOG.warn("DynamoWorkerMetadata {}/{}: malformed entry skipped: {}", namespace, cr.name(), e.getMessage());
    }
    int mismatches = WorkerMetadataResource.hashMismatches(cr);
    if (mismatches > 0 && cr.currentDataValid()) {
      counters.hashMismatches.addAndGet(mismatches);
    }
    if (mismatches > 0 && cr.currentDataValid() && hashWarned.add(cr.name() + "/" + cr.uid())) {
      LOG.warn("DynamoWorkerMetadata {}/{}: {} records carry an instance id other than hash(cr name) = {}; "
          + "the ids in spec.data are used", namespace, cr.name(), mismatches,
          Long.toHexString(InstanceIdHash.instanceId(cr.name())));
    }
    for (DiscoveryDecodeException e : cr.skipped()) {
      reportSkipped.accept(e);
    }
  }

  private static boolean sameVersion(HasMetadata now, @Nullable HasMetadata before) {
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
      counters.readyWithoutUid.addAndGet(n);
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
      counters.readyWithoutUid.incrementAndGet();
      LOG.warn("Pod {}/{} has no metadata.uid and is skipped", namespace, p.getMetadata().getName());
    }
  }

  // ---------------------------------------------------------------- projection and join

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
    if (mode == ReadinessMode.POD) {
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

  /**
   * Joins the ready members with the CRs ({@link MembershipJoin}), updating the skip gauges and the Q14 warning
   * (CRs exist in pod mode but no ready EndpointSlice endpoint matches one).
   */
  MembershipJoin.Result join() {
    counters.recomputes.incrementAndGet();
    MembershipJoin.Result r = MembershipJoin.join(readyMembers(), crs);
    gauge(counters.ownerUidMismatches, r.ownerMismatches(), "ready members whose CR is owned by another pod uid");
    gauge(counters.duplicateKeys, r.duplicateKeys(), "records dropped because another CR has the same key");
    if (mode == ReadinessMode.POD && !crs.isEmpty() && r.matchedCrs().isEmpty()) {
      if (!noSliceWarned) {
        noSliceWarned = true;
        counters.noEndpointSliceWarnings.incrementAndGet();
        LOG.warn("{} DynamoWorkerMetadata CRs exist in namespace {} but no ready EndpointSlice endpoint labelled "
            + "{} matches one: are the worker Services labelled (runtime-inputs §11 Q14)?", crs.size(), namespace,
            KubernetesDiscovery.DISCOVERY_LABELS);
      }
    } else {
      noSliceWarned = false;
    }
    return r;
  }

  /** Logs when a "currently skipped" count changes; the stat holds the latest value. */
  private void gauge(AtomicLong stat, int value, String what) {
    long before = stat.getAndSet(value);
    if (before != value && value > 0) {
      LOG.warn("kubernetes discovery in namespace {}: {} {}", namespace, value, what);
    }
  }
}
