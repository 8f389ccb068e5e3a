package dev.kvrelay.discovery.kubernetes;

import static dev.kvrelay.discovery.kubernetes.Workers.byKey;
import static dev.kvrelay.discovery.kubernetes.Workers.recordsOf;
import static dev.kvrelay.discovery.kubernetes.Workers.specData;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.discovery.kubernetes.MockCluster.SliceEndpoint;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.RecordingListener;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pod mode ({@code runtime-inputs §3.2}) on the mock API server, with the spec's 500 ms debounce: the seed's
 * label selectors, the EndpointSlice–CR join with the ownerReference check, last valid data kept, endpoints
 * without a uid skipped, a pod turning unready, 410 Gone, and the Q14 warning.
 */
class PodModeTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private MockCluster cluster;
  private KubernetesDiscovery backend;
  private RecordingListener listener;

  @BeforeEach
  void start() throws Exception {
    cluster = new MockCluster();
  }

  @AfterEach
  void stop() throws Exception {
    if (backend != null) {
      backend.close();
    }
    cluster.close();
  }

  private void startBackend() throws Exception {
    backend = KubernetesDiscovery.start(cluster.backendClient(),
        MockCluster.options(ReadinessMode.POD, KubernetesDiscoveryOptions.DEFAULT_DEBOUNCE), true);
    listener = new RecordingListener();
    backend.watch(DiscoveryScope.watchAll(), listener);
    listener.await(WAIT, "the snapshot", l -> !l.payloads("snapshot").isEmpty());
  }

  /** A worker pod: its CR (owned by its uid) and its ready endpoint in slice {@code slice-<pod>}. */
  private List<DiscoveryRecord> worker(String pod, String address) {
    List<DiscoveryRecord> records = recordsOf(pod, address);
    cluster.putCr(pod, "uid-" + pod, specData(records));
    cluster.putSlice("slice-" + pod, List.of(new SliceEndpoint(pod, "uid-" + pod, true)), null);
    return records;
  }

  @Test
  void watchesOnlySlicesWithBothSeedLabelsAndSelectsThemOnTheServer() throws Exception {
    List<DiscoveryRecord> w0 = worker("worker-0", "10.0.0.1:9999/generate");
    cluster.putCr("worker-1", "uid-worker-1", specData(recordsOf("worker-1", "10.0.0.2:9999/generate")));
    cluster.putSlice("slice-one-label", List.of(new SliceEndpoint("worker-1", "uid-worker-1", true)),
        Map.of("nvidia.com/dynamo-discovery-backend", "kubernetes"));
    cluster.putSlice("slice-disabled", List.of(new SliceEndpoint("worker-1", "uid-worker-1", true)),
        Map.of("nvidia.com/dynamo-discovery-backend", "kubernetes", "nvidia.com/dynamo-discovery-enabled", "false"));
    startBackend();
    listener.awaitView(WAIT, byKey(w0));

    String selector = "labelSelector=nvidia.com/dynamo-discovery-backend=kubernetes,nvidia.com/dynamo-discovery-enabled=true";
    List<ApiDispatcher.Call> sliceCalls = cluster.dispatcher.calls().stream()
        .filter(c -> c.method().equals("GET"))
        .filter(c -> c.resourcePath().equals("/apis/discovery.k8s.io/v1/namespaces/dynamo/endpointslices")).toList();
    assertThat(sliceCalls).isNotEmpty().allSatisfy(c ->
        assertThat(URLDecoder.decode(c.query(), StandardCharsets.UTF_8)).contains(selector));
    assertThat(sliceCalls).anySatisfy(c -> assertThat(c.query()).contains("watch=true"));
    // the CRs are read without a selector (§3.2)
    assertThat(cluster.dispatcher.calls()).anySatisfy(c -> {
      assertThat(c.resourcePath()).isEqualTo("/apis/nvidia.com/v1alpha1/namespaces/dynamo/dynamoworkermetadatas");
      assertThat(c.query()).doesNotContain("labelSelector");
    });
    listener.assertContractKept();
  }

  @Test
  void joinsReadyEndpointsToCrsAndRequiresTheOwnerUid() throws Exception {
    List<DiscoveryRecord> w0 = worker("worker-0", "10.0.0.1:9999/generate");
    // worker-1's CR claims another pod as owner (a stale CR of a previous pod with the same name)
    cluster.putCr("worker-1", "uid-old-worker-1", specData(recordsOf("worker-1", "10.0.0.2:9999/generate")));
    cluster.putSlice("slice-worker-1", List.of(new SliceEndpoint("worker-1", "uid-worker-1", true)), null);
    startBackend();
    listener.awaitView(WAIT, byKey(w0));
    assertThat(backend.stats().ownerUidMismatches()).isEqualTo(1);
    assertThat(backend.stats().hashMismatches()).isZero();

    // the CR is re-created by the new pod: it joins
    List<DiscoveryRecord> w1 = recordsOf("worker-1", "10.0.0.2:9999/generate");
    cluster.deleteCr("worker-1");
    cluster.putCr("worker-1", "uid-worker-1", specData(w1));
    listener.awaitView(WAIT, byKey(w0, w1));
    MockCluster.await(WAIT, "the mismatch gauge to clear", () -> backend.stats().ownerUidMismatches() == 0);
    listener.assertContractKept();
  }

  @Test
  void aCrWhoseDataTurnsNullOrInvalidKeepsItsLastValidData() throws Exception {
    List<DiscoveryRecord> w0 = worker("worker-0", "10.0.0.1:9999/generate");
    startBackend();
    listener.awaitView(WAIT, byKey(w0));

    cluster.putCr("worker-0", "uid-worker-0", null); // spec without data
    cluster.putCr("worker-0", "uid-worker-0", "\"not an object\"");
    cluster.putCr("worker-0", "uid-worker-0", "{\"endpoints\":[1,2,3]}"); // a map that is not an object
    List<DiscoveryRecord> marker = worker("worker-9", "10.0.0.9:9999/generate");
    listener.awaitView(WAIT, byKey(w0, marker));
    assertThat(listener.payloads("removed")).isEmpty();
    MockCluster.await(WAIT, "three invalid versions counted", () -> backend.stats().invalidCrData() == 3);

    List<DiscoveryRecord> moved = recordsOf("worker-0", "10.0.0.7:9999/generate");
    cluster.putCr("worker-0", "uid-worker-0", specData(moved));
    listener.awaitView(WAIT, byKey(moved, marker));
    listener.assertContractKept();
  }

  @Test
  void aCrThatNeverHadValidDataContributesNothingAndMalformedEntriesAreReported() throws Exception {
    cluster.putCr("worker-0", "uid-worker-0", "[]");
    cluster.putSlice("slice-worker-0", List.of(new SliceEndpoint("worker-0", "uid-worker-0", true)), null);
    List<DiscoveryRecord> w1 = recordsOf("worker-1", "10.0.0.2:9999/generate");
    // one good entry and one malformed entry in the same CR: the good one is used
    String data = specData(w1).replace("\"endpoints\":{", "\"endpoints\":{\"dynamo/backend/generate/1\":{\"type\":\"Endpoint\"},");
    cluster.putCr("worker-1", "uid-worker-1", data);
    cluster.putSlice("slice-worker-1", List.of(new SliceEndpoint("worker-1", "uid-worker-1", true)), null);
    startBackend();
    listener.awaitView(WAIT, byKey(w1));
    listener.await(WAIT, "the malformed entry reported", l -> !l.errors().isEmpty());
    assertThat(listener.errors()).singleElement().isInstanceOfSatisfying(DiscoveryDecodeException.class,
        e -> assertThat(e.entry()).isEqualTo("endpoints/dynamo/backend/generate/1"));
    assertThat(backend.stats().invalidCrData()).isEqualTo(1);
    assertThat(backend.stats().malformedEntries()).isEqualTo(1);
    listener.assertContractKept();
  }

  @Test
  void readyEndpointsWithoutAUidAreSkipped() throws Exception {
    List<DiscoveryRecord> w0 = recordsOf("worker-0", "10.0.0.1:9999/generate");
    cluster.putCr("worker-0", "uid-worker-0", specData(w0));
    List<DiscoveryRecord> w1 = worker("worker-1", "10.0.0.2:9999/generate");
    cluster.putSlice("slice-worker-0", List.of(new SliceEndpoint("worker-0", null, true)), null);
    startBackend();
    listener.awaitView(WAIT, byKey(w1));
    assertThat(backend.stats().readyWithoutUid()).isEqualTo(1);

    cluster.putSlice("slice-worker-0", List.of(new SliceEndpoint("worker-0", "uid-worker-0", true)), null);
    listener.awaitView(WAIT, byKey(w0, w1));
    listener.assertContractKept();
  }

  @Test
  void aPodBecomingUnreadyIsRemoved() throws Exception {
    List<DiscoveryRecord> w0 = worker("worker-0", "10.0.0.1:9999/generate");
    List<DiscoveryRecord> w1 = worker("worker-1", "10.0.0.2:9999/generate");
    startBackend();
    listener.awaitView(WAIT, byKey(w0, w1));

    cluster.putSlice("slice-worker-0", List.of(new SliceEndpoint("worker-0", "uid-worker-0", false)), null);
    listener.awaitView(WAIT, byKey(w1));
    assertThat(listener.payloads("removed")).containsExactlyInAnyOrderElementsOf(byKey(w0).keySet());

    cluster.putSlice("slice-worker-0", List.of(new SliceEndpoint("worker-0", "uid-worker-0", true)), null);
    listener.awaitView(WAIT, byKey(w0, w1));
    cluster.deleteSlice("slice-worker-1"); // the Service's slice goes away: removed as well
    listener.awaitView(WAIT, byKey(w0));
    listener.assertContractKept();
  }

  @Test
  void goneRelistsAndDeliversTheDiffAsAResync() throws Exception {
    List<DiscoveryRecord> w0 = worker("worker-0", "10.0.0.1:9999/generate");
    List<DiscoveryRecord> w1 = worker("worker-1", "10.0.0.2:9999/generate");
    startBackend();
    listener.awaitView(WAIT, byKey(w0, w1));

    // while the watcher's version expires, worker-0 leaves and worker-2 arrives
    List<DiscoveryRecord> w2 = recordsOf("worker-2", "10.0.0.3:9999/generate");
    List<ApiDispatcher.Call> whileExpired = List.of(
        cluster.createCrCall("worker-2", "uid-worker-2", specData(w2)),
        cluster.createSliceCall("slice-worker-2", List.of(new SliceEndpoint("worker-2", "uid-worker-2", true))),
        MockCluster.deleteCrCall("worker-0"));
    listener.awaitView(WAIT, byKey(w0, w1)); // building the requests wrote and deleted worker-2 once
    cluster.dispatcher.armGone("/dynamoworkermetadatas", whileExpired);
    cluster.proxy.dropConnections(); // the CR watch reconnects: its new stream says 410
    // The deadline only bounds a failing run: fabric8's mock server closes the dropped watch on its single event
    // loop and waits there for an executor (WatchEventsListener.onClosed) — 17.8 s on a loaded machine — before it
    // serves the reconnecting watch its 410.
    MockCluster.await(Duration.ofSeconds(90), "the 410", () -> backend.stats().goneRelists() == 1);
    listener.awaitView(WAIT, byKey(w1, w2));
    DiscoveryDiff last = listener.resyncDiffs().get(listener.resyncDiffs().size() - 1);
    assertThat(last.removed()).containsExactlyInAnyOrderElementsOf(byKey(w0).keySet());
    assertThat(last.upserted()).containsExactlyInAnyOrderElementsOf(w2);
    assertThat(listener.errors()).isNotEmpty().allSatisfy(e ->
        assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.WATCH_INTERRUPTED));
    assertThat(backend.stats().watchInterruptions()).isGreaterThanOrEqualTo(2);
    listener.assertContractKept();
  }

  @Test
  void warnsWhenCrsExistButNoEndpointSliceMatches() throws Exception {
    cluster.putCr("worker-0", "uid-worker-0", specData(recordsOf("worker-0", "10.0.0.1:9999/generate")));
    cluster.putSlice("slice-unlabelled", List.of(new SliceEndpoint("worker-0", "uid-worker-0", true)),
        Map.of("app", "worker"));
    startBackend();
    assertThat(listener.view()).isEmpty();
    assertThat(backend.stats().noEndpointSliceWarnings()).isEqualTo(1);

    List<DiscoveryRecord> w1 = worker("worker-1", "10.0.0.2:9999/generate");
    listener.awaitView(WAIT, byKey(w1));
    cluster.deleteSlice("slice-worker-1");
    listener.awaitView(WAIT, Map.of());
    MockCluster.await(WAIT, "a second warning", () -> backend.stats().noEndpointSliceWarnings() == 2);
    listener.assertContractKept();
  }

  @Test
  void instanceIdsComeFromSpecDataAndTheHashIsOnlyACrossCheck() throws Exception {
    List<DiscoveryRecord> odd = recordsOf("somebody-else", "10.0.0.1:9999/generate"); // ids of another name
    cluster.putCr("worker-0", "uid-worker-0", specData(odd));
    cluster.putSlice("slice-worker-0", List.of(new SliceEndpoint("worker-0", "uid-worker-0", true)), null);
    startBackend();
    listener.awaitView(WAIT, byKey(odd));
    assertThat(backend.stats().hashMismatches()).isEqualTo(2);
  }
}
