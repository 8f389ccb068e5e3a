package dev.kvrelay.engine.topology;

import static dev.kvrelay.engine.topology.Fixtures.AGG;
import static dev.kvrelay.engine.topology.Fixtures.D;
import static dev.kvrelay.engine.topology.Fixtures.E;
import static dev.kvrelay.engine.topology.Fixtures.LEGACY;
import static dev.kvrelay.engine.topology.Fixtures.P;
import static dev.kvrelay.engine.topology.Fixtures.endpoint;
import static dev.kvrelay.engine.topology.Fixtures.ep;
import static dev.kvrelay.engine.topology.Fixtures.live;
import static dev.kvrelay.engine.topology.Fixtures.needs;
import static dev.kvrelay.engine.topology.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.membership.ConflictScope;
import dev.kvrelay.engine.membership.WorkerTopology;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** producer.md §5.6 worked examples, one test each (all members live unless stated). */
class WorkedExamplesTest {
  private static final DynamoEndpointId PE = ep("ns", "prefill");
  private static final DynamoEndpointId DE = ep("ns", "decode");
  private static final DynamoEndpointId EE = ep("ns", "encode");
  private static final WorkerTopology PREFILL_NEEDS_D = WorkerTopology.of(P, needs(List.of(D)));
  private static final WorkerTopology DECODE_NEEDS_P = WorkerTopology.of(D, needs(List.of(P)));

  private static TopologyEntry only(List<TopologyEntry> entries) {
    assertThat(entries).hasSize(1);
    return entries.get(0);
  }

  @Test
  void twoAggregatedModelsInOneNamespace_twoReadyEntries() {
    DynamoEndpointId llama = ep("ns", "llama");
    DynamoEndpointId mixtral = ep("ns", "mixtral");
    List<TopologyEntry> entries = Evaluator.evaluate(
        List.of(endpoint(mixtral, "mixtral", 2, WorkerTopology.of(AGG)), endpoint(llama, "llama", 1, WorkerTopology.of(AGG))),
        live(llama, Set.of(1L), mixtral, Set.of(2L)), List.of());
    assertThat(entries).extracting(TopologyEntry::canonicalModelId).containsExactly("llama", "mixtral");
    for (TopologyEntry e : entries) {
      assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
      assertThat(e.presentRoles()).containsExactly(AGG);
      assertThat(e.duplicateRoleEndpoints()).isEmpty();
      assertThat(e.missingRoles()).isEmpty();
      assertThat(e.legacyFallbackActive()).isFalse();
    }
  }

  @Test
  void prefillDecode_readyWithTwoLinkedMembers() {
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(PE, "llama", 1, PREFILL_NEEDS_D), endpoint(DE, "llama", 2, DECODE_NEEDS_P)),
        live(PE, Set.of(1L), DE, Set.of(2L)),
        List.of(new PoolLink(PE, "llama", pool(1)), new PoolLink(DE, "llama", pool(3)))));
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.presentRoles()).containsExactly(P, D);
    assertThat(e.members()).containsExactly(
        new TopologyMember(DE, List.of(D), Optional.of(pool(3))),
        new TopologyMember(PE, List.of(P), Optional.of(pool(1))));
  }

  private static List<EndpointTopology> epd() {
    return List.of(
        endpoint(EE, "llama", 3, WorkerTopology.of(E, needs(List.of(P, D), List.of(AGG)))),
        endpoint(PE, "llama", 1, PREFILL_NEEDS_D),
        endpoint(DE, "llama", 2, DECODE_NEEDS_P));
  }

  @Test
  void encodePrefillDecode_readyAndEncodeHasNoPool_thenEncodeGoneIsUnavailable() {
    List<PoolLink> links = List.of(new PoolLink(PE, "llama", pool(1)), new PoolLink(DE, "llama", pool(3)));
    TopologyEntry ready = only(Evaluator.evaluate(epd(), live(EE, Set.of(3L), PE, Set.of(1L), DE, Set.of(2L)), links));
    assertThat(ready.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(ready.members()).contains(new TopologyMember(EE, List.of(E), Optional.empty()));

    TopologyEntry down = only(Evaluator.evaluate(epd(), live(EE, Set.of(), PE, Set.of(1L), DE, Set.of(2L)), links));
    assertThat(down.state()).isEqualTo(ServingReadinessState.UNAVAILABLE);
    assertThat(down.missingRoles()).containsExactly(E);
  }

  @Test
  void prefillDecodeOnlyPrefillLive_unavailableMissingDecode() {
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(PE, "llama", 1, PREFILL_NEEDS_D), endpoint(DE, "llama", 2, DECODE_NEEDS_P)),
        live(PE, Set.of(1L), DE, Set.of()), List.of()));
    assertThat(e.state()).isEqualTo(ServingReadinessState.UNAVAILABLE);
    assertThat(e.missingRoles()).containsExactly(D);
    assertThat(e.presentRoles()).containsExactly(P);
  }

  @Test
  void aggregatedLiveEncodeDead_notReadyMissingOnlyEncode() {
    DynamoEndpointId agg = ep("ns", "agg");
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(agg, "llama", 1, WorkerTopology.of(AGG)),
            endpoint(EE, "llama", 3, WorkerTopology.of(E, needs(List.of(P, D))))),
        live(agg, Set.of(1L), EE, Set.of()), List.of()));
    assertThat(e.state()).isEqualTo(ServingReadinessState.UNAVAILABLE);
    assertThat(e.missingRoles()).containsExactly(E);
  }

  @Test
  void mixedLegacyLiveDecodeDead_readyWithLegacyFallback() {
    DynamoEndpointId legacy = ep("ns", "legacy");
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(legacy, "llama", 1, WorkerTopology.legacy()), endpoint(DE, "llama", 2, DECODE_NEEDS_P)),
        live(legacy, Set.of(1L), DE, Set.of()), List.of()));
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.legacyFallbackActive()).isTrue();
    assertThat(e.missingRoles()).isEmpty();
  }

  @Test
  void legacyPlusTwoPrefillEndpoints_readyLegacyNoDuplicates() {
    DynamoEndpointId legacy = ep("ns", "legacy");
    DynamoEndpointId p2 = ep("ns", "prefill2");
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(legacy, "llama", 1, WorkerTopology.legacy()), endpoint(PE, "llama", 2, PREFILL_NEEDS_D),
            endpoint(p2, "llama", 3, PREFILL_NEEDS_D)),
        live(legacy, Set.of(1L), PE, Set.of(2L), p2, Set.of(3L)), List.of()));
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.legacyFallbackActive()).isTrue();
    assertThat(e.duplicateRoleEndpoints()).isEmpty();
    assertThat(e.members().get(0).roles()).containsExactly(LEGACY);
  }

  @Test
  void twoPrefillOneDecode_duplicatePrefillButReady() {
    DynamoEndpointId p2 = ep("ns", "prefill2");
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(PE, "llama", 1, PREFILL_NEEDS_D), endpoint(p2, "llama", 3, PREFILL_NEEDS_D),
            endpoint(DE, "llama", 2, DECODE_NEEDS_P)),
        live(PE, Set.of(1L), p2, Set.of(3L), DE, Set.of(2L)), List.of()));
    assertThat(e.duplicateRoleEndpoints()).containsExactly(P);
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
  }

  @Test
  void twoAggregatedEndpoints_readyNoDuplicates() {
    DynamoEndpointId a1 = ep("ns", "agg1");
    DynamoEndpointId a2 = ep("ns", "agg2");
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(a1, "llama", 1, WorkerTopology.of(AGG)), endpoint(a2, "llama", 2, WorkerTopology.of(AGG))),
        live(a1, Set.of(1L), a2, Set.of(2L)), List.of()));
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.duplicateRoleEndpoints()).isEmpty();
  }

  @Test
  void independentPdPairsForLlamaAndMistral_twoReadyEntries() {
    DynamoEndpointId mp = ep("ns", "mistral-prefill");
    DynamoEndpointId md = ep("ns", "mistral-decode");
    List<TopologyEntry> entries = Evaluator.evaluate(
        List.of(endpoint(PE, "llama", 1, PREFILL_NEEDS_D), endpoint(DE, "llama", 2, DECODE_NEEDS_P),
            endpoint(mp, "mistral", 3, PREFILL_NEEDS_D), endpoint(md, "mistral", 4, DECODE_NEEDS_P)),
        live(PE, Set.of(1L), DE, Set.of(2L), mp, Set.of(3L), md, Set.of(4L)), List.of());
    assertThat(entries).extracting(TopologyEntry::canonicalModelId).containsExactly("llama", "mistral");
    for (TopologyEntry e : entries) {
      assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
      assertThat(e.duplicateRoleEndpoints()).isEmpty();
      assertThat(e.members()).hasSize(2);
    }
  }

  @Test
  void adapterOnAggregatedEndpointPlusSeparatePd_baseAndAdapterReady() {
    DynamoEndpointId agg = ep("ns", "agg");
    EndpointTopology aggregated = endpoint(agg, "llama", 5, WorkerTopology.of(AGG))
        .withAdapters(Fixtures.adapter("llama-sql", "llama", "sql-lora", 5L));
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(aggregated, endpoint(PE, "llama", 1, PREFILL_NEEDS_D), endpoint(DE, "llama", 2, DECODE_NEEDS_P)),
        live(agg, Set.of(5L), PE, Set.of(1L), DE, Set.of(2L)), List.of()));
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.adapters()).containsExactly(new AdapterReadiness("llama-sql", ServingReadinessState.READY, List.of()));
  }

  @Test
  void adapterOnlyOnDecodeInPd_baseReadyAdapterUnavailableMissingPrefill() {
    EndpointTopology decode = endpoint(DE, "llama", 2, DECODE_NEEDS_P)
        .withAdapters(Fixtures.adapter("llama-sql", "llama", "sql-lora", 2L));
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(PE, "llama", 1, PREFILL_NEEDS_D), decode),
        live(PE, Set.of(1L), DE, Set.of(2L)), List.of()));
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.adapters()).containsExactly(
        new AdapterReadiness("llama-sql", ServingReadinessState.UNAVAILABLE, List.of(P)));
  }

  @Test
  void pdBeforeAvailabilityAfterPrefillAfterBoth_unknownUnknownReady() {
    TopologyPublisher publisher = new TopologyPublisher();
    publisher.putMembership(endpoint(PE, "llama", 1, PREFILL_NEEDS_D));
    publisher.putMembership(endpoint(DE, "llama", 2, DECODE_NEEDS_P));
    publisher.claim(PE, 1);
    publisher.claim(DE, 2);
    TopologyEntry before = only(publisher.snapshot().entries());
    assertThat(before.state()).isEqualTo(ServingReadinessState.UNKNOWN);
    assertThat(before.presentRoles()).isEmpty();
    assertThat(before.missingRoles()).isEmpty();

    publisher.publishAvailability(PE, 1, Optional.of(Set.of(1L)));
    TopologyEntry afterPrefill = only(publisher.snapshot().entries());
    assertThat(afterPrefill.state()).isEqualTo(ServingReadinessState.UNKNOWN);
    assertThat(afterPrefill.presentRoles()).isEmpty();
    assertThat(afterPrefill.missingRoles()).isEmpty();

    publisher.publishAvailability(DE, 2, Optional.of(Set.of(2L)));
    TopologyEntry both = only(publisher.snapshot().entries());
    assertThat(both.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(both.presentRoles()).containsExactly(P, D);
  }

  @Test
  void zeroBlockSizeCard_modelStillListedWithoutPool() {
    DynamoEndpointId agg = ep("ns", "agg");
    EndpointTopology fenced = endpoint(agg, "llama", 1, WorkerTopology.of(AGG))
        .withConflicts(Set.of(ConflictScope.POOL_MATERIALIZATION));
    TopologyEntry e = only(Evaluator.evaluate(List.of(fenced), live(agg, Set.of(1L)), List.of()));
    assertThat(e.canonicalModelId()).isEqualTo("llama");
    assertThat(e.members()).containsExactly(new TopologyMember(agg, List.of(AGG), Optional.empty()));
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
  }

  @Test
  void conformanceC7_legacyEntryWithPool() {
    DynamoEndpointId legacy = ep("dynamo", "backend");
    TopologyEntry e = only(Evaluator.evaluate(
        List.of(endpoint(legacy, "llama", 1, WorkerTopology.legacy())), live(legacy, Set.of(1L)),
        List.of(new PoolLink(legacy, "llama", pool(9)))));
    assertThat(e.state()).isEqualTo(ServingReadinessState.READY);
    assertThat(e.legacyFallbackActive()).isTrue();
    assertThat(e.members()).containsExactly(new TopologyMember(legacy, List.of(WorkerRole.LEGACY), Optional.of(pool(9))));
  }

  @Test
  void emptyInput_noEntries() {
    assertThat(Evaluator.evaluate(List.of(), Map.of(), List.of())).isEmpty();
  }
}
