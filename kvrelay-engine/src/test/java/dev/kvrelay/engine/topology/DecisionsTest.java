package dev.kvrelay.engine.topology;

import static dev.kvrelay.engine.topology.Fixtures.AGG;
import static dev.kvrelay.engine.topology.Fixtures.D;
import static dev.kvrelay.engine.topology.Fixtures.E;
import static dev.kvrelay.engine.topology.Fixtures.P;
import static dev.kvrelay.engine.topology.Fixtures.endpoint;
import static dev.kvrelay.engine.topology.Fixtures.ep;
import static dev.kvrelay.engine.topology.Fixtures.live;
import static dev.kvrelay.engine.topology.Fixtures.needs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.engine.membership.ConflictScope;
import dev.kvrelay.engine.membership.WorkerTopology;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The "Decision needed" boxes this component follows, each pinned by name. */
class DecisionsTest {
  private static final DynamoEndpointId AGG_EP = ep("ns", "agg");

  private static List<TopologyEntry> withConflict(ConflictScope scope) {
    EndpointTopology e = endpoint(AGG_EP, "llama", 1, WorkerTopology.of(AGG)).withConflicts(Set.of(scope));
    return Evaluator.evaluate(List.of(e), live(AGG_EP, Set.of(1L)), List.of());
  }

  @Test
  void decisionConflictFilterB_poolMaterializationKeepsMember() {
    assertThat(withConflict(ConflictScope.POOL_MATERIALIZATION)).singleElement()
        .satisfies(e -> assertThat(e.members()).extracting(TopologyMember::endpoint).containsExactly(AGG_EP));
  }

  @Test
  void decisionConflictFilterB_servingTopologyRemovesMember() {
    assertThat(withConflict(ConflictScope.SERVING_TOPOLOGY)).isEmpty();
  }

  @Test
  void decisionConflictFilterB_servingBindingKeepsMember() {
    assertThat(withConflict(ConflictScope.SERVING_BINDING)).singleElement()
        .satisfies(e -> assertThat(e.state()).isEqualTo(ServingReadinessState.READY));
  }

  @Test
  void decisionConflictFilterB_servingTopologyOnOneEndpointLeavesTheOther() {
    DynamoEndpointId other = ep("ns", "agg2");
    EndpointTopology bad = endpoint(AGG_EP, "llama", 1, WorkerTopology.of(AGG))
        .withConflicts(Set.of(ConflictScope.SERVING_TOPOLOGY, ConflictScope.POOL_MATERIALIZATION));
    List<TopologyEntry> entries = Evaluator.evaluate(
        List.of(bad, endpoint(other, "llama", 2, WorkerTopology.of(AGG))),
        live(AGG_EP, Set.of(1L), other, Set.of(2L)), List.of());
    assertThat(entries).singleElement()
        .satisfies(e -> assertThat(e.members()).extracting(TopologyMember::endpoint).containsExactly(other));
  }

  @Test
  void decisionUnitGroupingKeyB_modelTypeSplitsUnits() {
    Map<Long, WorkerTopology> workers = new LinkedHashMap<>();
    workers.put(1L, new WorkerTopology(P, Fixtures.CHAT, List.of(List.of(D))));
    workers.put(2L, new WorkerTopology(P, Fixtures.EMBEDDING, List.of(List.of(D))));
    workers.put(3L, new WorkerTopology(P, Fixtures.CHAT, List.of(List.of(D))));
    workers.put(4L, new WorkerTopology(D, Fixtures.CHAT, List.of()));
    List<ReadinessUnit> units = ReadinessUnit.group(workers);
    assertThat(units).containsExactlyInAnyOrder(
        new ReadinessUnit(P, Fixtures.CHAT, List.of(List.of(D)), new java.util.TreeSet<>(Set.of(1L, 3L))),
        new ReadinessUnit(P, Fixtures.EMBEDDING, List.of(List.of(D)), new java.util.TreeSet<>(Set.of(2L))),
        new ReadinessUnit(D, Fixtures.CHAT, List.of(), new java.util.TreeSet<>(Set.of(4L))));

    DynamoEndpointId e = ep("ns", "pd");
    TopologyEntry entry = Evaluator.evaluate(
        List.of(EndpointTopology.of(e, "llama", workers)), live(e, Set.of(1L, 2L, 4L)), List.of()).get(0);
    // Under (a) (worker_type, needs) the two prefill workers would form one unit and no duplicate would show.
    assertThat(entry.duplicateRoleEndpoints()).containsExactly(P);
    assertThat(entry.state()).isEqualTo(ServingReadinessState.READY);
  }

  @Test
  void decisionUnitGroupingKeyB_sameKeyIsOneUnit() {
    Map<Long, WorkerTopology> workers = new LinkedHashMap<>();
    workers.put(1L, new WorkerTopology(P, Fixtures.CHAT, List.of()));
    workers.put(2L, new WorkerTopology(P, Fixtures.CHAT, List.of()));
    DynamoEndpointId e = ep("ns", "p");
    TopologyEntry entry = Evaluator.evaluate(
        List.of(EndpointTopology.of(e, "llama", workers)), live(e, Set.of(1L, 2L)), List.of()).get(0);
    assertThat(entry.duplicateRoleEndpoints()).isEmpty();
  }

  @Test
  void decisionDuplicateRolesA_duplicatesDoNotGateReady() {
    DynamoEndpointId d1 = ep("ns", "d1");
    DynamoEndpointId d2 = ep("ns", "d2");
    DynamoEndpointId p1 = ep("ns", "p1");
    TopologyEntry e = Evaluator.evaluate(
        List.of(endpoint(d1, "llama", 1, WorkerTopology.of(D, needs(List.of(P)))),
            endpoint(d2, "llama", 2, WorkerTopology.of(D, needs(List.of(P)))),
            endpoint(p1, "llama", 3, WorkerTopology.of(P, needs(List.of(D))))),
        live(d1, Set.of(1L), d2, Set.of(2L), p1, Set.of(3L)), List.of()).get(0);
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.duplicateRoleEndpoints()).containsExactly(D);
  }

  @Test
  void decisionDuplicateRolesA_encodeDuplicatesFilteredFromWireField() {
    DynamoEndpointId e1 = ep("ns", "e1");
    DynamoEndpointId e2 = ep("ns", "e2");
    DynamoEndpointId agg = ep("ns", "agg");
    List<List<dev.kvrelay.api.WorkerRole>> encodeNeeds = needs(List.of(P, D), List.of(AGG));
    TopologyEntry e = Evaluator.evaluate(
        List.of(endpoint(e1, "llama", 1, WorkerTopology.of(E, encodeNeeds)),
            endpoint(e2, "llama", 2, WorkerTopology.of(E, encodeNeeds)),
            endpoint(agg, "llama", 3, WorkerTopology.of(AGG))),
        live(e1, Set.of(1L), e2, Set.of(2L), agg, Set.of(3L)), List.of()).get(0);
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.duplicateRoleEndpoints()).isEmpty();
  }

  @Test
  void aggregatedIsNotImplicitlyPrefillAndDecode() {
    // §5.3 step 4: membership is value equality, so a decode needing [[prefill]] is not satisfied by aggregated.
    DynamoEndpointId agg = ep("ns", "agg");
    DynamoEndpointId d = ep("ns", "d");
    TopologyEntry e = Evaluator.evaluate(
        List.of(endpoint(agg, "llama", 1, WorkerTopology.of(AGG)),
            endpoint(d, "llama", 2, WorkerTopology.of(D, needs(List.of(P))))),
        live(agg, Set.of(1L), d, Set.of(2L)), List.of()).get(0);
    assertThat(e.state()).isEqualTo(ServingReadinessState.UNAVAILABLE);
    assertThat(e.missingRoles()).containsExactly(P);
  }

  @Test
  void ambiguousPoolLinkIsOmitted() {
    TopologyEntry e = Evaluator.evaluate(
        List.of(endpoint(AGG_EP, "llama", 1, WorkerTopology.of(AGG))), live(AGG_EP, Set.of(1L)),
        List.of(new PoolLink(AGG_EP, "llama", Fixtures.pool(1)), new PoolLink(AGG_EP, "llama", Fixtures.pool(5))))
        .get(0);
    assertThat(e.members().get(0).poolId()).isEmpty();
  }

  @Test
  void membersSortedByEndpointPathAndEntriesByNamespaceThenModel() {
    DynamoEndpointId b = new DynamoEndpointId("ns", "b", "x");
    DynamoEndpointId bDash = new DynamoEndpointId("ns", "b-c", "x");
    DynamoEndpointId other = new DynamoEndpointId("alpha", "z", "x");
    List<TopologyEntry> entries = Evaluator.evaluate(
        List.of(endpoint(b, "m", 1, WorkerTopology.of(AGG)), endpoint(bDash, "m", 2, WorkerTopology.of(AGG)),
            endpoint(other, "zeta", 3, WorkerTopology.of(AGG))),
        live(b, Set.of(1L), bDash, Set.of(2L), other, Set.of(3L)), List.of());
    assertThat(entries).extracting(TopologyEntry::namespace).containsExactly("alpha", "ns");
    // "ns/b-c/x" < "ns/b/x" as strings ('-' = 0x2D < '/' = 0x2F).
    assertThat(entries.get(1).members()).extracting(TopologyMember::endpoint).containsExactly(bDash, b);
  }
}
