package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.plugin.PluginNotFoundException;
import dev.kvrelay.api.plugin.PluginRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Residency filter, recovery endpoint names, provider registry and transport selection. */
class SpiValuesTest {

  static RouterEvent cleared(StorageTier tier, ResidencyDomain domain) {
    return new RouterEvent(1, tier, domain, 1, 0, KvEventData.Cleared.INSTANCE);
  }

  @Test
  void targetsPrimaryOnlyForDeviceTierAndWorkerOrAbsentDomain() {
    // ckf-cbi1.md §3.4: only device tier with the worker domain (or no domain: legacy) is primary
    for (StorageTier tier : StorageTier.values()) {
      for (ResidencyDomain d : List.of(ResidencyDomain.WORKER, ResidencyDomain.ABSENT, ResidencyDomain.CACHE_OWNER,
          ResidencyDomain.unknown(null), ResidencyDomain.unknown("shared"))) {
        boolean expected = tier == StorageTier.DEVICE
            && (d.kind() == ResidencyDomain.Kind.WORKER || d.kind() == ResidencyDomain.Kind.ABSENT);
        assertThat(cleared(tier, d).targetsPrimary()).as(tier + "/" + d).isEqualTo(expected);
        assertThat(cleared(tier, d).hasUnsupportedResidency()).isEqualTo(d.kind() == ResidencyDomain.Kind.UNKNOWN);
      }
    }
  }

  @Test
  void residencyDomainRejectsInconsistentParts() {
    assertThatThrownBy(() -> ResidencyDomain.unknown("worker")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ResidencyDomain(ResidencyDomain.Kind.WORKER, "x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ResidencyDomain.fromWire("cache_owner")).isEqualTo(ResidencyDomain.CACHE_OWNER);
  }

  @Test
  void recoveryEndpointNameIsPerRankDecisionB() {
    // producer.md §3.6 decision (b): worker_kv_indexer_query_dp{rank}[_worker{worker_id}]
    long w = Long.parseUnsignedLong("7587891234567890123");
    assertThat(RecoveryTarget.queryEndpointName(0, w, w)).isEqualTo("worker_kv_indexer_query_dp0");
    assertThat(RecoveryTarget.queryEndpointName(3, w, 42)).isEqualTo("worker_kv_indexer_query_dp3_worker7587891234567890123");
    assertThat(RecoveryTarget.queryEndpointName(-1, -1L, 5))
        .isEqualTo("worker_kv_indexer_query_dp4294967295_worker18446744073709551615");
    RecoveryTarget target = new RecoveryTarget(new DynamoEndpointId("dynamo", "backend", "generate"), w,
        TransportAddress.tcp("10.1.2.3:9999/generate"));
    assertThat(target.queryEndpoint(w, 2)).isEqualTo(new DynamoEndpointId("dynamo", "backend", "worker_kv_indexer_query_dp2"));
  }

  @Test
  void recoveryRequestsAsTheRelaySendsThem() {
    WorkerKvQueryRequest full = WorkerKvQueryRequest.fullRestore(7, 1);
    assertThat(full.startEventId()).isEmpty();
    assertThat(full.endEventId()).isEmpty();
    assertThat(full.supportsTreeDumpFailed()).isTrue();
    assertThat(full.kind().wireName()).isEqualTo("recovery");
    assertThat(WorkerKvQueryRequest.incremental(7, 1, 43).startEventId()).hasValue(43);
  }

  @Test
  void serviceLoaderFindsTheInMemoryProvider() throws Exception {
    PluginRegistry<EventPlaneProvider> registry = EventPlaneProviders.load();
    EventPlaneProvider mem = registry.byName("mem");
    assertThat(mem).isInstanceOf(InMemoryEventPlaneProvider.class);
    assertThat(mem.artifact()).isEqualTo("dev.kvrelay:kvrelay-spi-eventplane");
    assertThat(registry.best()).isSameAs(mem);
    try (EventPlane plane = mem.open(EventPlaneSettings.empty())) {
      assertThat(plane.connectsToChannels()).isFalse();
    }
  }

  @Test
  void missingTransportNamesTheArtifactToAdd() {
    PluginRegistry<EventPlaneProvider> registry = EventPlaneProviders.load();
    assertThatThrownBy(() -> registry.byName("zmq")).isInstanceOf(PluginNotFoundException.class)
        .hasMessage("no event plane named 'zmq': add dev.kvrelay:kvrelay-eventplane-zmq to the class path");
    assertThatThrownBy(() -> registry.byName("nats"))
        .hasMessageContaining("dev.kvrelay:kvrelay-eventplane-nats");
  }

  @Test
  void transportSelectionDefaultsToZmq() {
    // runtime-inputs.md §5.1: DYN_EVENT_PLANE unset or empty selects ZMQ (newest upstream)
    assertThat(EventPlaneProviders.selectedName(null)).isEqualTo("zmq");
    assertThat(EventPlaneProviders.selectedName("  ")).isEqualTo("zmq");
    assertThat(EventPlaneProviders.selectedName(" NATS ")).isEqualTo("nats");
  }

  @Test
  void removedEqualityIsByContent() {
    assertThat(KvEventData.Removed.of(1, 2)).isEqualTo(new KvEventData.Removed(new long[] {1, 2}));
    assertThat(KvEventData.Removed.of(1, 2)).isNotEqualTo(KvEventData.Removed.of(2, 1));
    assertThat(KvEventData.Removed.of(-1).toString()).contains("18446744073709551615");
  }
}
