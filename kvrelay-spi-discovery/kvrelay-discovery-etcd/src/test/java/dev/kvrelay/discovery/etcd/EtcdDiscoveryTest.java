package dev.kvrelay.discovery.etcd;

import static dev.kvrelay.spi.discovery.TestRecords.byKey;
import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static dev.kvrelay.spi.discovery.TestRecords.oneOfEachKind;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.discovery.ChannelTransport;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventChannelRecord;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.RecordingListener;
import dev.kvrelay.spi.discovery.TestRecords;
import dev.kvrelay.spi.discovery.Transport;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The etcd backend against a real Debian etcd: upstream-shaped values, leases, compaction, restarts, registration. */
class EtcdDiscoveryTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  @RegisterExtension static final EtcdServerExtension ETCD = new EtcdServerExtension();

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private EtcdWorld world(Map<String, String> settings) throws Exception {
    EtcdWorld w = new EtcdWorld(ETCD.server(), settings);
    closeables.add(w);
    return w;
  }

  private RecordingListener watchAll(EtcdWorld w) throws Exception {
    RecordingListener l = new RecordingListener();
    DiscoveryWatch watch = w.backend.watch(DiscoveryScope.watchAll(), l);
    closeables.add(watch);
    l.await(TIMEOUT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());
    return l;
  }

  private static void poll(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  // ---- upstream-shaped values written by an independent client ----

  /** The four §1.2 example values, at their §2.1 keys (ids made consistent with the key hex). */
  private static Map<String, String> upstreamExamples() {
    String iid = "7587891234567890123";
    String iidHex = Long.toHexString(7587891234567890123L);
    String pubHex = Long.toHexString(4503599627370001L);
    String ep = "{\"namespace\":\"dynamo\",\"component\":\"backend\",\"name\":\"generate\"}";
    Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("v1/instances/dynamo/backend/generate/" + iidHex,
        "{\"type\":\"Endpoint\",\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\","
            + "\"instance_id\":" + iid + ",\"transport\":{\"tcp\":\"10.1.2.3:9999/generate\"},"
            + "\"request_plane_codec\":\"msgpack\"}");
    m.put("v1/mdc/dynamo/backend/generate/" + iidHex + "/customer-123-v2",
        "{\"type\":\"Model\",\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\","
            + "\"instance_id\":" + iid + ",\"card_json\":{\"display_name\":\"Qwen/Qwen3-0.6B\","
            + "\"kv_cache_block_size\":16,\"lora\":{\"name\":\"customer-123-v2\"}},\"model_suffix\":\"customer-123-v2\"}");
    m.put("v1/event_channels/namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/" + pubHex,
        "{\"type\":\"EventChannel\",\"scope\":{\"kind\":\"endpoint\",\"endpoint\":" + ep + "},"
            + "\"topic\":\"kv-events\",\"instance_id\":4503599627370001,"
            + "\"transport\":{\"kind\":\"Zmq\",\"config\":{\"endpoint\":\"tcp://10.1.2.3:41877\"}}}");
    m.put("v1/event_sources/namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/" + pubHex,
        "{\"type\":\"EventSource\",\"scope\":{\"kind\":\"endpoint\",\"endpoint\":" + ep + "},"
            + "\"topic\":\"kv-events\",\"publisher_id\":4503599627370001,"
            + "\"metadata\":{\"kv_state_endpoint\":" + ep + ",\"worker\":{\"worker_id\":" + iid + ",\"dp_rank\":0},"
            + "\"publisher_id\":4503599627370001}}");
    return m;
  }

  @Test
  void cardsInstancesEventSourcesAndChannelsWrittenByEtcdctlAppearAndVanish() throws Exception {
    EtcdWorld w = world(Map.of());
    RecordingListener l = watchAll(w);
    Map<String, String> examples = upstreamExamples();
    for (Map.Entry<String, String> e : examples.entrySet()) {
      w.etcd.etcdctlWithInput(e.getValue(), "put", e.getKey());
    }
    l.await(TIMEOUT, "four records", x -> x.view().size() == 4);
    Map<String, DiscoveryRecord> byStorageKey = new HashMap<>();
    for (DiscoveryRecord r : l.view().values()) {
      byStorageKey.put(r.key().storageKey(), r);
    }
    assertThat(byStorageKey.keySet()).containsExactlyInAnyOrderElementsOf(examples.keySet());
    for (DiscoveryRecord r : byStorageKey.values()) {
      if (r instanceof EndpointRecord e) {
        assertThat(e.key().instanceId()).isEqualTo(7587891234567890123L);
        assertThat(e.transport()).isEqualTo(new Transport.Tcp("10.1.2.3:9999/generate"));
      } else if (r instanceof ModelRecord m) {
        assertThat(m.key().suffix()).isEqualTo("customer-123-v2");
        assertThat(m.card().displayName()).isEqualTo("Qwen/Qwen3-0.6B");
      } else if (r instanceof EventChannelRecord c) {
        assertThat(c.transport()).isEqualTo(new ChannelTransport.Zmq("tcp://10.1.2.3:41877"));
        assertThat(c.key().scope()).isEqualTo(new EventScope.Endpoint(TestRecords.ep("dynamo", "backend", "generate")));
      } else {
        EventSourceRecord s = (EventSourceRecord) r;
        assertThat(s.source().workerId()).isEqualTo(7587891234567890123L);
        assertThat(s.key().publisherId()).isEqualTo(4503599627370001L);
      }
    }

    for (String key : examples.keySet()) {
      w.etcd.etcdctl("del", key);
    }
    l.await(TIMEOUT, "all removed", x -> x.view().isEmpty());
    List<String> removed = new ArrayList<>();
    for (Object k : l.payloads("removed")) {
      removed.add(((DiscoveryKey) k).storageKey());
    }
    assertThat(removed).containsExactlyInAnyOrderElementsOf(examples.keySet());
    assertThat(l.errors()).isEmpty();
    l.assertContractKept();
  }

  @Test
  void aWorkersLeaseExpiryRemovesItsKeys() throws Exception {
    EtcdWorld w = world(Map.of());
    EndpointRecord survivor = endpoint("team-a", "backend", "generate", 99, "h:99/generate");
    w.put(survivor);
    RecordingListener l = watchAll(w);
    // a worker whose lease id is >= 2^63 (etcd lease ids are unmasked u64): its keys carry that id
    List<DiscoveryRecord> worker = oneOfEachKind("team-a", -9L);
    String lease = w.etcd.etcdctl("lease", "grant", "2").split("\\s+")[1];
    for (DiscoveryRecord r : worker) {
      w.etcd.etcdctlWithInput(DiscoveryCodec.encodeToString(r), "put", "--lease=" + lease, r.key().storageKey());
    }
    Map<DiscoveryKey, DiscoveryRecord> all = new HashMap<>(byKey(worker));
    all.put(survivor.key(), survivor);
    l.awaitView(TIMEOUT, all);
    // no keep-alive: the lease expires and etcd deletes every key attached to it in one revision
    l.awaitView(TIMEOUT, byKey(List.of(survivor)));
    assertThat(l.payloads("removed")).containsExactlyInAnyOrderElementsOf(byKey(worker).keySet());
    l.assertContractKept();
  }

  // ---- compaction and restarts ----

  @Test
  void etcdctlCompactBehindTheWatchForcesAResyncThatLosesNothing() throws Exception {
    EtcdWorld w = world(Map.of());
    List<DiscoveryRecord> before = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      before.add(endpoint("team-a", "backend", "generate", i, "h:" + i + "/generate"));
    }
    for (DiscoveryRecord r : before) {
      w.put(r);
    }
    RecordingListener l = watchAll(w);
    l.awaitView(TIMEOUT, byKey(before));

    w.proxy.cut(); // the watch falls behind
    Map<DiscoveryKey, DiscoveryRecord> expected = new HashMap<>(byKey(before));
    for (int i = 0; i < 50; i += 2) {
      w.remove(before.get(i).key());
      expected.remove(before.get(i).key());
    }
    for (int i = 50; i < 300; i++) {
      EndpointRecord r = endpoint("team-b", "backend", "generate", i, "h:" + i + "/generate");
      w.put(r);
      expected.put(r.key(), r);
    }
    EndpointRecord moved = endpoint("team-a", "backend", "generate", 1, "h:moved/generate");
    w.put(moved);
    expected.put(moved.key(), moved);
    String revision = w.etcd.etcdctl("get", "v1/", "--prefix", "--keys-only", "--limit=1", "-w", "json")
        .replaceAll("(?s).*\"revision\":(\\d+).*", "$1");
    w.etcd.etcdctl("compact", revision);
    w.proxy.restore();

    l.await(TIMEOUT, "a resync", x -> !x.payloads("resync").isEmpty());
    l.awaitView(TIMEOUT, expected);
    assertThat(l.errors()).anySatisfy(e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.WATCH_INTERRUPTED));
    assertThat(w.backend.stats().compactions()).isGreaterThanOrEqualTo(1);
    assertThat(w.backend.stats().resyncs()).isGreaterThanOrEqualTo(1);

    // the watch goes on from the resync revision: nothing replayed, later changes arrive
    EndpointRecord after = endpoint("team-c", "backend", "generate", 7, "h:7/generate");
    w.put(after);
    expected.put(after.key(), after);
    l.awaitView(TIMEOUT, expected);
    assertThat(l.view()).isEqualTo(storeContents(w));
    l.assertContractKept();
  }

  private static Map<DiscoveryKey, DiscoveryRecord> storeContents(EtcdWorld w) throws Exception {
    Map<DiscoveryKey, DiscoveryRecord> out = new HashMap<>();
    for (KeyValue kv : w.writer.getKVClient().get(EtcdWorld.bytes("v1/"), GetOption.builder().isPrefix(true).build())
        .get(10, TimeUnit.SECONDS).getKvs()) {
      DiscoveryRecord r = DiscoveryCodec.decode(kv.getValue().getBytes());
      out.put(r.key(), r);
    }
    return out;
  }

  @Test
  void etcdKilledAndRestartedMidWatchResumesFromTheLastRevision() throws Exception {
    EtcdWorld w = world(Map.of());
    List<DiscoveryRecord> first = oneOfEachKind("team-a", 1);
    for (DiscoveryRecord r : first) {
      w.put(r);
    }
    RecordingListener l = watchAll(w);
    l.awaitView(TIMEOUT, byKey(first));

    ETCD.server().kill();
    poll("the watch to notice", () -> w.backend.stats().streamInterruptions() >= 1);
    ETCD.server().start(); // same data dir and ports

    List<DiscoveryRecord> second = oneOfEachKind("team-a", 2);
    Map<DiscoveryKey, DiscoveryRecord> expected = new HashMap<>(byKey(second));
    poll("etcd to take writes again", () -> {
      try {
        for (DiscoveryRecord r : second) {
          w.put(r);
        }
        for (DiscoveryRecord r : first) {
          w.remove(r.key());
        }
        return true;
      } catch (Exception e) {
        return false;
      }
    });
    l.awaitView(TIMEOUT, expected);
    assertThat(l.payloads("resync")).as("a resumed watch needs no resync").isEmpty();
    assertThat(w.backend.stats().resyncs()).isZero();
    assertThat(l.payloads("removed")).containsExactlyInAnyOrderElementsOf(byKey(first).keySet());
    l.assertContractKept();
  }

  // ---- decode failures ----

  @Test
  void aMalformedValueOverAKnownRecordIsCountedAndChangesNothing() throws Exception {
    EtcdWorld w = world(Map.of());
    EndpointRecord good = endpoint("team-a", "backend", "generate", 5, "h:5/generate");
    w.put(good);
    RecordingListener l = watchAll(w);
    l.awaitView(TIMEOUT, byKey(List.of(good)));

    w.putMalformed(good.key().kind(), good.key().path(), "{\"type\":\"Endpoint\"");
    w.putMalformed(good.key().kind(), "team-a/backend/generate/6",
        DiscoveryCodec.encodeToString(endpoint("team-a", "backend", "generate", 7, "h:7/generate"))); // key mismatch
    w.putMalformed(good.key().kind(), "not-an-instance-path", "{}");
    w.remove(DiscoveryKey.parse(good.key().kind(), "team-a/backend/generate/6"));
    w.writer.getKVClient().delete(EtcdWorld.bytes("v1/instances/not-an-instance-path")).get(10, TimeUnit.SECONDS);
    EndpointRecord marker = endpoint("team-a", "backend", "generate", 8, "h:8/generate");
    w.put(marker);
    l.await(TIMEOUT, "the marker", x -> x.view().containsKey(marker.key()));

    assertThat(l.view()).isEqualTo(byKey(List.of(good, marker)));
    assertThat(l.errors()).hasSize(4).allSatisfy(e -> assertThat(e).isInstanceOf(DiscoveryDecodeException.class));
    assertThat(l.errors()).extracting(e -> ((DiscoveryDecodeException) e).reason()).containsExactly(
        DiscoveryDecodeException.Reason.INVALID_JSON, DiscoveryDecodeException.Reason.KEY_MISMATCH,
        DiscoveryDecodeException.Reason.INVALID_PATH, DiscoveryDecodeException.Reason.INVALID_PATH);
    assertThat(w.backend.stats().decodeFailures()).isEqualTo(4);
    l.assertContractKept();
  }

  // ---- the relay's own registration ----

  @Test
  void ownRegistrationLivesUnderThePrimaryLeaseAndGoesAwayOnClose() throws Exception {
    EtcdWorld w = world(Map.of(EtcdSettings.LEASE_TTL, "2"));
    long id = w.backend.instanceId();
    EndpointRecord own = endpoint("relay", "kv_dc_relay", "control", id, "127.0.0.1:5561/control");
    assertThat(w.backend.register(own)).isTrue();
    assertThat(w.backend.register(own)).as("a second register updates").isFalse();
    String lease = w.etcd.etcdctl("get", own.key().storageKey(), "-w", "fields");
    assertThat(lease).contains("\"Lease\" : " + Long.toUnsignedString(id));
    assertThatThrownBy(() -> w.backend.register(endpoint("relay", "kv_dc_relay", "control", id + 1, "h:1/control")))
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));

    Thread.sleep(3 * 2_000); // three TTLs: the keep-alive holds the key
    assertThat(w.etcd.etcdctl("get", own.key().storageKey(), "--print-value-only"))
        .isEqualTo(DiscoveryCodec.encodeToString(own));
    assertThat(w.backend.stats().registrations()).isEqualTo(1);

    w.backend.close(); // revokes the lease: the key goes at once
    assertThat(w.etcd.etcdctl("get", own.key().storageKey())).isEmpty();
  }

  @Test
  void ownRegistrationDisappearsWhenItsLeaseIsRevoked() throws Exception {
    EtcdWorld w = world(Map.of());
    RecordingListener l = watchAll(w);
    EndpointRecord own = endpoint("relay", "kv_dc_relay", "control", w.backend.instanceId(), "127.0.0.1:5561/control");
    w.backend.register(own);
    l.awaitView(TIMEOUT, byKey(List.of(own)));

    w.etcd.etcdctl("lease", "revoke", Long.toHexString(w.backend.instanceId()));
    l.awaitView(TIMEOUT, Map.of());
    poll("the lease loss to be noticed", () -> w.backend.stats().leaseLost());
    assertThat(w.backend.isLeaseAlive()).isFalse();
    assertThatThrownBy(() -> w.backend.register(own)).isInstanceOfSatisfying(DiscoveryException.class,
        e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.UNAVAILABLE));
  }

  @Test
  void ownRegistrationDisappearsWhenTheRelayProcessDies() throws Exception {
    world(Map.of()); // clears the store
    ProcessBuilder pb = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
        RegisteringChild.class.getName(), ETCD.server().endpoint(), "2");
    pb.redirectErrorStream(true);
    Process child = pb.start();
    closeables.add(child::destroyForcibly);
    java.io.BufferedReader out = new java.io.BufferedReader(
        new java.io.InputStreamReader(child.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
    String key = null;
    for (String line; (line = out.readLine()) != null; ) {
      if (line.startsWith("REGISTERED ")) {
        key = line.substring("REGISTERED ".length());
        break;
      }
    }
    assertThat(key).as("the child registered").isNotNull();
    String registeredKey = key;
    assertThat(ETCD.server().etcdctl("get", registeredKey, "--keys-only")).isEqualTo(registeredKey);
    Thread.sleep(3 * 2_000); // alive: the keep-alive holds the key past its TTL
    assertThat(ETCD.server().etcdctl("get", registeredKey, "--keys-only")).isEqualTo(registeredKey);

    child.destroyForcibly(); // SIGKILL: no revoke, no cleanup
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    poll("the dead relay's key to expire", () -> {
      try {
        return ETCD.server().etcdctl("get", registeredKey, "--keys-only").isEmpty();
      } catch (Exception e) {
        return false;
      }
    });
  }

  private static String javaBinary() {
    return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  @Test
  void theProviderIsFoundByServiceLoaderAsEtcdAndPreferredOverMem() throws Exception {
    var registry = dev.kvrelay.spi.discovery.DiscoveryProviders.load();
    assertThat(registry.byName("etcd")).isInstanceOf(EtcdDiscoveryProvider.class);
    assertThat(registry.best()).isInstanceOf(EtcdDiscoveryProvider.class);
    assertThat(registry.byName("etcd").artifact()).isEqualTo("dev.kvrelay:kvrelay-discovery-etcd");
  }

  @Test
  void anUnreachableEtcdIsUnavailableAfterTheStartupTimeout() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> new EtcdDiscoveryProvider().open(dev.kvrelay.spi.discovery.DiscoverySettings.of(Map.of(
        EtcdSettings.ENDPOINTS, "http://127.0.0.1:" + port, EtcdSettings.STARTUP_CONNECT_TIMEOUT, "2"))))
        .isInstanceOfSatisfying(DiscoveryException.class, e -> {
          assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.UNAVAILABLE);
          assertThat(e.getMessage()).contains("127.0.0.1:" + port).contains("2 s");
        });
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aNamespaceScopeWatchesOnlyItsOwnPrefixes() throws Exception {
    assertThat(EtcdWatch.prefixes(DiscoveryScope.namespaces(List.of("team-a")))).containsExactly(
        "v1/instances/team-a/", "v1/mdc/team-a/", "v1/event_channels/namespace/team-a/",
        "v1/event_sources/namespace/team-a/");
    assertThat(EtcdWatch.prefixes(DiscoveryScope.watchAll())).containsExactly(
        "v1/instances/", "v1/mdc/", "v1/event_channels/", "v1/event_sources/");
    assertThat(EtcdWatch.prefixEnd("v1/mdc/team-a/")).isEqualTo("v1/mdc/team-a0");
    assertThat(new EndpointKey(TestRecords.ep("a", "b", "c"), -1L).storageKey())
        .isEqualTo("v1/instances/a/b/c/ffffffffffffffff");
  }
}
