package dev.kvrelay.spi.discovery;

import static dev.kvrelay.spi.discovery.TestRecords.ep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.EventScope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Path forms of runtime-inputs.md §1.4 / §2.1 (the §1.3 segment codec itself: kvrelay-api EventSegmentsTest). */
class DiscoveryKeyTest {

  @Test
  void etcdKeyExamplesOf21Parse() throws Exception {
    // runtime-inputs.md §2.1 "Full key example" column.
    assertThat(DiscoveryKey.parseStorageKey("v1/instances/dynamo/backend/generate/694d8a3f1c2b7e01"))
        .isEqualTo(new EndpointKey(ep("dynamo", "backend", "generate"), 0x694d8a3f1c2b7e01L));
    assertThat(DiscoveryKey.parseStorageKey("v1/mdc/dynamo/backend/generate/694d8a3f1c2b7e01"))
        .isEqualTo(new ModelKey(ep("dynamo", "backend", "generate"), 0x694d8a3f1c2b7e01L, null));
    assertThat(DiscoveryKey.parseStorageKey("v1/mdc/dynamo/backend/generate/694d8a3f1c2b7e01/customer-123-v2"))
        .isEqualTo(new ModelKey(ep("dynamo", "backend", "generate"), 0x694d8a3f1c2b7e01L, "customer-123-v2"));
    EventScope scope = new EventScope.Endpoint(ep("dynamo", "backend", "generate"));
    assertThat(DiscoveryKey.parseStorageKey(
        "v1/event_channels/namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/fffb2a01c3d4e"))
        .isEqualTo(new EventChannelKey(scope, "kv-events", 0xfffb2a01c3d4eL));
    assertThat(DiscoveryKey.parseStorageKey(
        "v1/event_sources/namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/fffb2a01c3d4e"))
        .isEqualTo(new EventSourceKey(scope, "kv-events", 0xfffb2a01c3d4eL));
  }

  @Test
  void eventPathsForEveryScopeEncodeTheirSegments() throws Exception {
    EventSourceKey ns = new EventSourceKey(new EventScope.Namespace("ns.a/b"), "kv-events", 255);
    assertThat(ns.path()).isEqualTo("namespace/ns%2Ea%2Fb/topic/kv-events/ff");
    EventChannelKey comp = new EventChannelKey(new EventScope.Component("dynamo", "back end"), "kv_metrics", 0);
    assertThat(comp.path()).isEqualTo("namespace/dynamo/component/back%20end/topic/kv_metrics/0");
    EventChannelKey endpoint = new EventChannelKey(new EventScope.Endpoint(ep("d", "c", "gen.v2")), "kv.events", 1);
    assertThat(endpoint.path()).isEqualTo("namespace/d/component/c/endpoint/gen%2Ev2/topic/kv%2Eevents/1");
    for (DiscoveryKey k : new DiscoveryKey[] {ns, comp, endpoint}) {
      assertThat(DiscoveryKey.parse(k.kind(), k.path())).isEqualTo(k);
    }
  }

  @Test
  void instanceIdsAreLowercaseUnpaddedHex() throws Exception {
    assertThat(new EndpointKey(ep("n", "c", "e"), 0).path()).isEqualTo("n/c/e/0");
    assertThat(new EndpointKey(ep("n", "c", "e"), -1L).path()).isEqualTo("n/c/e/ffffffffffffffff");
    assertThat(new EndpointKey(ep("n", "c", "e"), Long.MIN_VALUE).path()).isEqualTo("n/c/e/8000000000000000");
    assertThat(DiscoveryKey.parse(DiscoveryKind.ENDPOINT, "n/c/e/ffffffffffffffff"))
        .isEqualTo(new EndpointKey(ep("n", "c", "e"), -1L));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "ENDPOINT, n/c/e",
    "ENDPOINT, n/c/e/1/x",
    "ENDPOINT, n/c/e/0x1",
    "ENDPOINT, n/c/e/01",
    "ENDPOINT, n/c/e/1F",
    "ENDPOINT, n/c/e/",
    "ENDPOINT, n/c/e/10000000000000000",
    "ENDPOINT, n//e/1",
    "ENDPOINT, ' n/c/e/1'",
    "MODEL, n/c/e/1/x/y",
    "MODEL, n/c/e/1/",
    "MODEL, n/c/e",
    "EVENT_SOURCE, namespace/n/topic/t",
    "EVENT_SOURCE, namespace/n/topic/t/1/2",
    "EVENT_SOURCE, namespaces/n/topic/t/1",
    "EVENT_SOURCE, namespace/n/comp/c/topic/t/1",
    "EVENT_SOURCE, namespace/n/component/c/ep/e/topic/t/1",
    "EVENT_SOURCE, namespace/n/component/c/endpoint/e/topics/t/1",
    "EVENT_SOURCE, namespace//topic/t/1",
    "EVENT_SOURCE, namespace/n/topic//1",
    "EVENT_CHANNEL, namespace/n.x/topic/t/1",
    "EVENT_CHANNEL, namespace/n/topic/t/g",
    // Non-canonical §1.3 segments (EventSegments.decode rejects them) make the whole path invalid.
    "EVENT_CHANNEL, namespace/n%41/topic/t/1",
    "EVENT_SOURCE, namespace/n/component/%C3/topic/t/1",
    "EVENT_SOURCE, namespace/n/component/c/endpoint/a%2e/topic/t/1",
    "EVENT_SOURCE, namespace/n/component/c/endpoint/e/topic/%G0/1",
  })
  void malformedPathsAreRejected(DiscoveryKind kind, String path) {
    DiscoveryDecodeException e = catchThrowableOfType(DiscoveryDecodeException.class, () -> DiscoveryKey.parse(kind, path));
    assertThat(e).as(path).isNotNull();
    assertThat(e.reason()).isEqualTo(DiscoveryDecodeException.Reason.INVALID_PATH);
    assertThat(e.entry()).isEqualTo(kind.bucket() + "/" + path);
  }

  @Test
  void storageKeyOutsideEveryBucketIsRejected() {
    assertThat(catchThrowableOfType(DiscoveryDecodeException.class,
        () -> DiscoveryKey.parseStorageKey("v1/other/n/c/e/1")).reason())
        .isEqualTo(DiscoveryDecodeException.Reason.INVALID_PATH);
    // Bucket boundaries are whole segments: v1/mdcx is not v1/mdc.
    assertThat(catchThrowableOfType(DiscoveryDecodeException.class,
        () -> DiscoveryKey.parseStorageKey("v1/mdcx/n/c/e/1"))).isNotNull();
  }

  @Test
  void instanceAndModelPathPartsMayNotContainASlash() {
    assertThatThrownBy(() -> new EndpointKey(ep("a/b", "c", "e"), 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModelKey(ep("a", "c", "e"), 1, "x/y")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModelKey(ep("a", "c", "e"), 1, "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EventSourceKey(new EventScope.Namespace("n"), "", 1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keysOrderByKindThenPath() {
    DiscoveryKey e2 = new EndpointKey(ep("b", "c", "e"), 1);
    DiscoveryKey e1 = new EndpointKey(ep("a", "c", "e"), 2);
    DiscoveryKey m = new ModelKey(ep("a", "c", "e"), 1, null);
    java.util.List<DiscoveryKey> keys = new java.util.ArrayList<>(java.util.List.of(m, e2, e1));
    keys.sort(DiscoveryKey.ORDER);
    assertThat(keys).containsExactly(e1, e2, m);
  }
}
