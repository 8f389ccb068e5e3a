package dev.kvrelay.spi.discovery;

import static dev.kvrelay.spi.discovery.TestRecords.byKey;
import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static dev.kvrelay.spi.discovery.TestRecords.eventSource;
import static dev.kvrelay.spi.discovery.TestRecords.model;
import static dev.kvrelay.spi.discovery.TestRecords.oneOfEachKind;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link DiscoveryBackend} keeps, as tests (published in this module's test-jar).
 * A backend's test subclasses this and supplies a fresh {@link DiscoveryWorld} per test; every check
 * runs against the backend through that world:
 *
 * <ul>
 *   <li>the initial snapshot is complete and comes first, exactly once;
 *   <li>upserts and removals after the snapshot are delivered;
 *   <li>scope filtering: namespaces match exactly, endpoint prefixes by whole dot segments
 *       ({@code vectors.md} §10.2 rows);
 *   <li>a taints update patches a known card only;
 *   <li>changes to one key arrive in order, on one thread, one callback at a time;
 *   <li>{@link DiscoveryWatch#close()} and {@link DiscoveryBackend#close()} stop delivery;
 *   <li>malformed entries are skipped and reported through {@link DiscoveryListener#onError}, never fatal;
 *   <li>after an outage, {@link DiscoveryListener#onResync} carries the full state, whose diff removes
 *       what vanished (only if the world {@linkplain DiscoveryWorld#supportsOutage() supports outages}).
 * </ul>
 */
public abstract class DiscoveryBackendContract {

  /** A new, empty world (store plus connected backend) for one test. */
  protected abstract DiscoveryWorld newWorld() throws Exception;

  /** How long to wait for a delivery. */
  protected Duration timeout() {
    return Duration.ofSeconds(10);
  }

  /** How long to watch for deliveries that must not happen. */
  protected Duration quietPeriod() {
    return Duration.ofMillis(300);
  }

  /** The world of the running test. */
  protected DiscoveryWorld world;

  private final List<DiscoveryWatch> watches = new ArrayList<>();

  @BeforeEach
  void openWorld() throws Exception {
    world = newWorld();
  }

  @AfterEach
  void closeWorld() throws Exception {
    for (DiscoveryWatch w : watches) {
      w.close();
    }
    world.close();
  }

  private RecordingListener watch(DiscoveryScope scope) throws Exception {
    RecordingListener listener = new RecordingListener();
    watches.add(world.backend().watch(scope, listener));
    return listener;
  }

  private DiscoveryWatch watchWith(DiscoveryScope scope, RecordingListener listener) throws Exception {
    DiscoveryWatch w = world.backend().watch(scope, listener);
    watches.add(w);
    return w;
  }

  private void putAll(List<? extends DiscoveryRecord> records) throws Exception {
    for (DiscoveryRecord r : records) {
      world.put(r);
    }
  }

  private void awaitSnapshot(RecordingListener l) throws InterruptedException {
    l.await(timeout(), "the snapshot", x -> !x.payloads("snapshot").isEmpty());
  }

  private void quiet() throws InterruptedException {
    Thread.sleep(quietPeriod().toMillis());
  }

  @Test
  void snapshotIsCompleteAndComesFirstExactlyOnce() throws Exception {
    List<DiscoveryRecord> all = new ArrayList<>(oneOfEachKind("team-a", 0x694d8a3f1c2b7e01L));
    all.addAll(oneOfEachKind("team-b", -7L)); // an id >= 2^63
    all.add(model("team-a", "backend", "generate", 0x694d8a3f1c2b7e01L, "customer-123-v2", "customer-123-v2"));
    putAll(all);

    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);
    l.awaitView(timeout(), byKey(all));
    assertThat(l.events().get(0).type()).isEqualTo("snapshot");
    @SuppressWarnings("unchecked")
    List<DiscoveryRecord> snapshot = (List<DiscoveryRecord>) l.payloads("snapshot").get(0);
    assertThat(snapshot).containsExactlyInAnyOrderElementsOf(all);
    quiet();
    assertThat(l.payloads("snapshot")).hasSize(1);
    l.assertContractKept();
  }

  @Test
  void emptyStoreStillDeliversAnEmptySnapshot() throws Exception {
    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);
    assertThat(l.payloads("snapshot").get(0)).isEqualTo(List.of());
    l.assertContractKept();
  }

  @Test
  void upsertsAfterTheSnapshotAreDelivered() throws Exception {
    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);
    List<DiscoveryRecord> records = oneOfEachKind("team-a", 42);
    putAll(records);
    l.awaitView(timeout(), byKey(records));

    EndpointRecord moved = endpoint("team-a", "backend", "generate", 42, "10.9.9.9:9999/generate");
    world.put(moved);
    Map<DiscoveryKey, DiscoveryRecord> expected = new HashMap<>(byKey(records));
    expected.put(moved.key(), moved);
    l.awaitView(timeout(), expected);
    l.assertContractKept();
  }

  @Test
  void removalsAreDelivered() throws Exception {
    List<DiscoveryRecord> a = oneOfEachKind("team-a", 1);
    List<DiscoveryRecord> b = oneOfEachKind("team-a", 2);
    putAll(a);
    putAll(b);
    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);
    for (DiscoveryRecord r : a) {
      world.remove(r.key());
    }
    l.awaitView(timeout(), byKey(b));
    assertThat(l.payloads("removed")).containsExactlyInAnyOrderElementsOf(byKey(a).keySet());
    l.assertContractKept();
  }

  @Test
  void namespaceScopeMatchesExactly() throws Exception {
    List<DiscoveryRecord> inside = oneOfEachKind("team-a", 1);
    putAll(inside);
    putAll(oneOfEachKind("team-a2", 2));
    putAll(oneOfEachKind("team", 3));
    RecordingListener l = watch(DiscoveryScope.namespaces(List.of("team-a")));
    awaitSnapshot(l);
    l.awaitView(timeout(), byKey(inside));

    putAll(oneOfEachKind("team-a-b", 4));
    EndpointRecord marker = endpoint("team-a", "marker", "generate", 5, "10.0.0.5:9999/generate");
    world.put(marker);
    Map<DiscoveryKey, DiscoveryRecord> expected = new HashMap<>(byKey(inside));
    expected.put(marker.key(), marker);
    l.awaitView(timeout(), expected);
    quiet();
    assertThat(l.view()).isEqualTo(expected);
    l.assertContractKept();
  }

  @Test
  void endpointPrefixesMatchWholeDotSegments() throws Exception {
    // vectors.md §10.2: prefix prod-a.backend matches prod-a.backend.generate, not prod-a.backend2.generate;
    // production.back does not match production.backend.
    List<DiscoveryRecord> matching = new ArrayList<>();
    matching.add(endpoint("prod-a", "backend", "generate", 1, "h:1/generate"));
    matching.add(model("prod-a", "backend", "generate", 1, null, "m"));
    matching.add(eventSource("prod-a", "backend", "generate", 11, 1, 0));
    List<DiscoveryRecord> other = new ArrayList<>();
    other.add(endpoint("prod-a", "backend2", "generate", 2, "h:2/generate"));
    other.add(model("prod-a", "backend2", "generate", 2, null, "m"));
    other.add(eventSource("prod-a", "backend2", "generate", 12, 2, 0));
    other.add(endpoint("production", "backend", "generate", 3, "h:3/generate"));
    other.add(model("production", "backend", "generate", 3, null, "m"));
    putAll(matching);
    putAll(other);

    DiscoveryScope scope = DiscoveryScope.namespaces(List.of("prod-a", "production"),
        List.of("prod-a.backend", "production.back"));
    RecordingListener l = watch(scope);
    awaitSnapshot(l);
    l.awaitView(timeout(), byKey(matching));

    world.put(endpoint("prod-a", "backend2", "generate", 4, "h:4/generate"));
    world.put(endpoint("production", "backend", "generate", 5, "h:5/generate"));
    EndpointRecord later = endpoint("prod-a", "backend", "generate", 6, "h:6/generate");
    world.put(later);
    matching.add(later);
    l.awaitView(timeout(), byKey(matching));
    quiet();
    assertThat(l.view()).isEqualTo(byKey(matching));
    l.assertContractKept();
  }

  @Test
  void taintsUpdatePatchesAKnownCardOnly() throws Exception {
    ModelRecord card = model("team-a", "backend", "generate", 7, null, "Qwen/Qwen3-0.6B");
    world.put(card);
    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);

    world.updateTaints(card.key(), List.of("dynamo.topology/zone=a", "maintenance"));
    l.await(timeout(), "the taints", x -> {
      DiscoveryRecord r = x.view().get(card.key());
      return r instanceof ModelRecord
          && ((ModelRecord) r).card().runtimeConfig().taints().equals(List.of("dynamo.topology/zone=a", "maintenance"));
    });
    ModelRecord patched = (ModelRecord) l.view().get(card.key());
    assertThat(((JsonObject) patched.rawCard().get("runtime_config")).get("taints"))
        .isEqualTo(JsonArray.ofStrings(List.of("dynamo.topology/zone=a", "maintenance")));
    assertThat(patched.card().displayName()).isEqualTo("Qwen/Qwen3-0.6B");

    ModelKey unknown = new ModelKey(TestRecords.ep("team-a", "backend", "generate"), 8, null);
    world.updateTaints(unknown, List.of("x"));
    EndpointRecord marker = endpoint("team-a", "backend", "generate", 9, "h:9/generate");
    world.put(marker);
    l.await(timeout(), "the marker", x -> x.view().containsKey(marker.key()));
    quiet();
    assertThat(l.view()).doesNotContainKey(unknown);
    l.assertContractKept();
  }

  @Test
  void changesToOneKeyArriveInOrder() throws Exception {
    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);
    int versions = 40;
    for (int v = 0; v < versions; v++) {
      world.put(endpoint("team-a", "backend", "generate", 77, "10.0.0." + v + ":9999/generate"));
    }
    EndpointRecord last = endpoint("team-a", "backend", "generate", 77, "10.0.0." + (versions - 1) + ":9999/generate");
    l.awaitView(timeout(), byKey(List.of(last)));
    int previous = -1;
    for (Object o : l.payloads("upserted")) {
      String address = ((Transport.Tcp) ((EndpointRecord) o).transport()).address();
      int v = Integer.parseInt(address.substring("10.0.0.".length(), address.indexOf(':')));
      assertThat(v).as("versions of one key must arrive in order").isGreaterThan(previous);
      previous = v;
    }

    // remove then re-add, and add then remove: the last change wins.
    EndpointRecord other = endpoint("team-a", "backend", "generate", 78, "h:78/generate");
    world.put(other);
    world.remove(other.key());
    world.remove(last.key());
    world.put(last);
    l.awaitView(timeout(), byKey(List.of(last)));
    quiet();
    assertThat(l.view()).isEqualTo(byKey(List.of(last)));
    l.assertContractKept();
  }

  @Test
  void closingAWatchStopsDeliveryAndLeavesOthersRunning() throws Exception {
    RecordingListener closed = new RecordingListener();
    DiscoveryWatch w = watchWith(DiscoveryScope.watchAll(), closed);
    RecordingListener open = watch(DiscoveryScope.watchAll());
    awaitSnapshot(closed);
    awaitSnapshot(open);
    EndpointRecord a = endpoint("team-a", "backend", "generate", 1, "h:1/generate");
    world.put(a);
    closed.await(timeout(), "a", x -> x.view().containsKey(a.key()));

    w.close();
    assertThat(w.isOpen()).isFalse();
    int seen = closed.eventCount();
    EndpointRecord b = endpoint("team-a", "backend", "generate", 2, "h:2/generate");
    world.put(b);
    world.remove(a.key());
    open.awaitView(timeout(), byKey(List.of(b)));
    quiet();
    assertThat(closed.eventCount()).as("callbacks after close()").isEqualTo(seen);
    w.close(); // idempotent
    closed.assertContractKept();
    open.assertContractKept();
  }

  @Test
  void closingTheBackendStopsEveryWatchAndRefusesNewOnes() throws Exception {
    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);
    world.backend().close();
    int seen = l.eventCount();
    world.put(endpoint("team-a", "backend", "generate", 1, "h:1/generate"));
    quiet();
    assertThat(l.eventCount()).isEqualTo(seen);
    assertThatThrownBy(() -> world.backend().watch(DiscoveryScope.watchAll(), new RecordingListener()))
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.CLOSED));
    world.backend().close(); // idempotent
  }

  @Test
  void malformedEntriesAreSkippedAndReportedNotFatal() throws Exception {
    world.putMalformed(DiscoveryKind.MODEL, "team-a/backend/generate/1", "{\"type\":\"Model\",");
    List<DiscoveryRecord> valid = oneOfEachKind("team-a", 2);
    putAll(valid);
    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);
    l.awaitView(timeout(), byKey(valid));
    l.await(timeout(), "the error for the stored malformed entry", x -> !x.errors().isEmpty());

    int before = l.errors().size();
    world.putMalformed(DiscoveryKind.ENDPOINT, "team-a/backend/generate/3",
        "{\"type\":\"Endpoint\",\"namespace\":\"team-a\",\"component\":\"backend\",\"endpoint\":\"generate\","
            + "\"instance_id\":3}");
    world.putMalformed(DiscoveryKind.EVENT_SOURCE, "namespace/team-a/topic/kv-events/4", "[]");
    EndpointRecord after = endpoint("team-a", "backend", "generate", 5, "h:5/generate");
    world.put(after);
    Map<DiscoveryKey, DiscoveryRecord> expected = new HashMap<>(byKey(valid));
    expected.put(after.key(), after);
    l.awaitView(timeout(), expected);
    l.await(timeout(), "two more errors", x -> x.errors().size() >= before + 2);
    assertThat(l.errors()).allSatisfy(e -> {
      assertThat(e).isInstanceOf(DiscoveryDecodeException.class);
      assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.MALFORMED_ENTRY);
    });
    l.assertContractKept();
  }

  @Test
  void resyncAfterAnOutageCarriesTheFullStateAndItsDiff() throws Exception {
    Assumptions.assumeTrue(world.supportsOutage(), "world cannot simulate an outage");
    EndpointRecord a = endpoint("team-a", "backend", "generate", 1, "h:1/generate");
    EndpointRecord b = endpoint("team-a", "backend", "generate", 2, "h:2/generate");
    ModelRecord c = model("team-a", "backend", "generate", 3, null, "m");
    putAll(List.of(a, b, c));
    RecordingListener l = watch(DiscoveryScope.watchAll());
    awaitSnapshot(l);
    l.awaitView(timeout(), byKey(List.of(a, b, c)));

    world.beginOutage();
    EndpointRecord bMoved = endpoint("team-a", "backend", "generate", 2, "h:22/generate");
    EndpointRecord d = endpoint("team-a", "backend", "generate", 4, "h:4/generate");
    world.remove(a.key());
    world.put(bMoved);
    world.put(d);
    world.endOutage();

    l.await(timeout(), "a resync", x -> !x.payloads("resync").isEmpty());
    l.awaitView(timeout(), byKey(List.of(bMoved, c, d)));
    DiscoveryDiff diff = l.resyncDiffs().get(l.resyncDiffs().size() - 1);
    assertThat(diff.removed()).containsExactly(a.key());
    assertThat(diff.upserted()).containsExactlyInAnyOrder(bMoved, d);
    l.assertContractKept();
  }
}
