package dev.kvrelay.engine.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.engine.membership.EndpointMembership;
import dev.kvrelay.engine.membership.MembershipProjector;
import dev.kvrelay.engine.membership.MembershipView;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * End to end: discovery {@link ModelRecord}s → {@link MembershipProjector} → {@link EndpointTopology#from}
 * → {@link Evaluator}, on the producer.md §5.6 worked example "PD: prefill (needs [[decode]]) + decode
 * (needs [[prefill]])" and its variant "P + D, only prefill live".
 */
class MembershipToTopologyTest {
  private static final DcId DC = DcId.of(7);
  private static final DynamoEndpointId PE = new DynamoEndpointId("ns", "prefill", "generate");
  private static final DynamoEndpointId DE = new DynamoEndpointId("ns", "decode", "generate");

  private static ModelRecord card(DynamoEndpointId endpoint, long worker, String body) throws Exception {
    return ModelRecord.of(new ModelKey(endpoint, worker, null), (JsonObject) Json.parse("{" + body + "}"));
  }

  private static MembershipView projectPd() throws Exception {
    String llama = "\"display_name\":\"llama\",\"kv_cache_block_size\":16";
    return new MembershipProjector(DC, DiscoveryScope.watchAll()).project(List.of(
        card(PE, 1, llama + ",\"worker_type\":\"prefill\",\"needs\":[[\"decode\"]]"),
        card(DE, 2, llama + ",\"worker_type\":\"decode\",\"needs\":[[\"prefill\"]]")));
  }

  private static List<TopologyEntry> evaluate(MembershipView view, Map<DynamoEndpointId, Set<Long>> live) {
    List<EndpointTopology> endpoints = new ArrayList<>();
    List<PoolLink> links = new ArrayList<>();
    for (EndpointMembership m : view.endpoints().values()) {
      EndpointTopology.from(m).ifPresent(endpoints::add);
      m.poolId(DC).ifPresent(pool -> {
        for (String model : EndpointTopology.from(m).orElseThrow().baseModels()) {
          links.add(new PoolLink(m.endpoint(), model, pool));
        }
      });
    }
    return Evaluator.evaluate(endpoints, live, links);
  }

  @Test
  void workedExamplePrefillDecode_fromModelRecords_isReadyWithTwoLinkedMembers() throws Exception {
    MembershipView view = projectPd();
    List<TopologyEntry> entries = evaluate(view, Map.of(PE, Set.of(1L), DE, Set.of(2L)));

    assertThat(entries).hasSize(1);
    TopologyEntry e = entries.get(0);
    assertThat(e.namespace()).isEqualTo("ns");
    assertThat(e.canonicalModelId()).isEqualTo("llama");
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.presentRoles()).containsExactly(WorkerRole.PREFILL, WorkerRole.DECODE);
    assertThat(e.missingRoles()).isEmpty();
    assertThat(e.legacyFallbackActive()).isFalse();
    assertThat(e.members()).extracting(TopologyMember::endpoint).containsExactly(DE, PE);
    assertThat(e.members()).extracting(TopologyMember::roles)
        .containsExactly(List.of(WorkerRole.DECODE), List.of(WorkerRole.PREFILL));
    assertThat(e.members()).extracting(TopologyMember::poolId).allMatch(Optional::isPresent);
  }

  @Test
  void workedExamplePrefillDecode_onlyPrefillLive_isUnavailableMissingDecode() throws Exception {
    List<TopologyEntry> entries = evaluate(projectPd(), Map.of(PE, Set.of(1L), DE, Set.of()));

    assertThat(entries).singleElement().satisfies(e -> {
      assertThat(e.state()).isEqualTo(ServingReadinessState.UNAVAILABLE);
      assertThat(e.missingRoles()).containsExactly(WorkerRole.DECODE);
    });
  }

  @Test
  void fromMembership_carriesWorkerTopologyAndBaseModels() throws Exception {
    EndpointTopology pe = EndpointTopology.from(projectPd().get(PE).orElseThrow()).orElseThrow();

    assertThat(pe.roles()).containsExactly(WorkerRole.PREFILL);
    assertThat(pe.baseModels()).containsExactly("llama");
    assertThat(pe.workers()).containsOnlyKeys(1L);
    assertThat(pe.workers().get(1L).needs()).containsExactly(List.of(WorkerRole.DECODE));
    assertThat(pe.conflicts()).isEmpty();
  }
}
