package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.membership.EndpointMembership;
import dev.kvrelay.engine.membership.KvSourceView;
import dev.kvrelay.engine.membership.MembershipProjector;
import dev.kvrelay.engine.recovery.SourceBinding;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.TransportAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the relay host keeps of discovery: records by key, the advertised KV sources, and the bindings they give. */
class DiscoveredRecordsTest {
  static final DynamoEndpointId SERVING = new DynamoEndpointId("ns", "backend", "generate");
  static final DynamoEndpointId OTHER = new DynamoEndpointId("ns", "backend", "other");
  static final MembershipProjector PROJECTOR = new MembershipProjector(DcId.of(42), DiscoveryScope.watchAll());

  static ModelRecord card(long worker, int dpSize) throws Exception {
    return ModelRecord.of(new ModelKey(SERVING, worker, null), (JsonObject) Json.parse(
        "{\"display_name\":\"llama\",\"kv_cache_block_size\":16,\"runtime_config\":{\"data_parallel_start_rank\":0,"
            + "\"data_parallel_size\":" + dpSize + "}}"));
  }

  static EndpointRecord instance(DynamoEndpointId endpoint, long worker) {
    return new EndpointRecord(new EndpointKey(endpoint, worker), new Transport.Tcp("127.0.0.1:9/" + worker), "json",
        null);
  }

  static EventSourceRecord source(long worker, long rank, long publisher, boolean recoverable) {
    return new EventSourceRecord(new EventSourceKey(new EventScope.Endpoint(SERVING), "kv-events", publisher),
        new KvEventSource(SERVING, worker, rank, publisher, recoverable ? instance(SERVING, worker) : null));
  }

  static List<SourceBinding> bindings(DiscoveredRecords d) {
    EndpointMembership m = PROJECTOR.project(d.models()).endpoints().get(SERVING);
    return d.bindings(KvSourceView.of(m, d.adverts()));
  }

  static SourceBinding recoverable(long worker, int rank, long publisher) {
    return new SourceBinding(new MemberId(worker, rank), publisher, Optional.of(new RecoveryTarget(SERVING, worker,
        new TransportAddress(TransportAddress.Kind.TCP, "127.0.0.1:9/" + worker))));
  }

  @Test
  void bindingsFollowTheAdvertisementsThroughUpsertRemoveAndResync() throws Exception {
    DiscoveredRecords d = new DiscoveredRecords();
    ModelRecord card = card(7, 2);
    EventSourceRecord rank0 = source(7, 0, 11, true);
    EventSourceRecord rank1 = source(7, 1, 12, false);
    d.replaceAll(List.of(card, rank0));
    d.upsert(rank1);

    SourceBinding liveOnly1 = new SourceBinding(new MemberId(7, 1), 12, Optional.empty());
    assertThat(bindings(d)).containsExactly(recoverable(7, 0, 11), liveOnly1);

    assertThat(d.remove(rank1.key())).isTrue();
    assertThat(bindings(d)).containsExactly(recoverable(7, 0, 11));
    assertThat(d.remove(rank1.key())).as("a second removal finds nothing").isFalse();

    // A resync that no longer lists rank 0 but lists rank 1 again: the advertisements are rebuilt from the records.
    d.resync(List.of(card, rank1));
    assertThat(bindings(d)).containsExactly(liveOnly1);
    assertThat(d.records()).containsExactlyInAnyOrder(card, rank1);
  }

  @Test
  void removalAndTaintsOfUnknownKeysChangeNothing() throws Exception {
    DiscoveredRecords d = new DiscoveredRecords();
    ModelRecord card = card(7, 1);
    d.replaceAll(List.of(card, source(7, 0, 11, true)));
    List<DiscoveryRecord> before = List.copyOf(d.records());

    assertThat(d.remove(new EndpointKey(SERVING, 99))).isFalse();
    assertThat(d.updateTaints(new ModelKey(SERVING, 99, null), List.of("t"))).isFalse();
    assertThat(d.records()).containsExactlyInAnyOrderElementsOf(before);

    assertThat(d.updateTaints(card.key(), List.of("maintenance"))).isTrue();
    assertThat(d.models()).singleElement()
        .satisfies(m -> assertThat(m.card().runtimeConfig().taints()).containsExactly("maintenance"));
  }

  @Test
  void liveInstancesGroupEndpointRecordsByEndpoint() {
    DiscoveredRecords d = new DiscoveredRecords();
    d.replaceAll(List.of(instance(SERVING, 1), instance(SERVING, 2), instance(OTHER, 3)));
    assertThat(d.liveInstances()).isEqualTo(Map.of(SERVING, Set.of(1L, 2L), OTHER, Set.of(3L)));

    d.replaceAll(List.of(instance(OTHER, 3)));
    assertThat(d.liveInstances()).isEqualTo(Map.of(OTHER, Set.of(3L)));
    assertThat(d.models()).isEmpty();
  }
}
