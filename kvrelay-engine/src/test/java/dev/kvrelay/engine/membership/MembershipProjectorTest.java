package dev.kvrelay.engine.membership;

import static dev.kvrelay.engine.membership.Cards.adapter;
import static dev.kvrelay.engine.membership.Cards.base;
import static dev.kvrelay.engine.membership.Cards.ep;
import static dev.kvrelay.engine.membership.Cards.simple;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.ModelRecord;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class MembershipProjectorTest {
  /** {@code dc-a} → 356084303347317832 ({@code producer.md} §1.2 vector). */
  static final DcId DC_A = DcId.of(356084303347317832L);

  static MembershipProjector projector() {
    return new MembershipProjector(DC_A, DiscoveryScope.watchAll());
  }

  static EndpointMembership only(MembershipView view, String endpoint) {
    return view.get(ep(endpoint)).orElseThrow();
  }

  static MembershipConflict conflict(ConflictScope scope, ConflictSubject subject, String reason) {
    return new MembershipConflict(scope, subject, reason);
  }

  @Test
  void goldenDomain_metaLlama512Standard_prodRouterGenerate() {
    MembershipView view = projector().project(List.of(base("prod/router/generate", 7,
        "\"display_name\":\"llama\",\"source_path\":\"meta/llama\",\"kv_cache_block_size\":512")));
    EndpointMembership m = only(view, "prod/router/generate");
    assertThat(m.domain()).isNotNull();
    assertThat(m.domain().id().cacheSemantics().hex()).isEqualTo("7d31eb9019357572470605f4a8be687e");
    assertThat(m.domain().id().routingScope().hex()).isEqualTo("18270d3ba03effaec8d167ba02c7752d");
    assertThat(m.domain().querySemantics().kvBlockSize()).isEqualTo(512);
    assertThat(m.domain().querySemantics().hashFormat()).isEqualTo(KvQueryHashFormat.fromEnableEagle(false));
    assertThat(m.registrations()).containsExactly(
        new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of()));
    assertThat(m.roles()).containsExactly(WorkerRole.LEGACY);
    assertThat(m.conflicts()).isEmpty();
    assertThat(m.isMaterializable()).isTrue();
    assertThat(m.generation()).isEqualTo(1);
    assertThat(m.poolId(DC_A).orElseThrow().toString()).isEqualTo(
        "7d31eb9019357572470605f4a8be687e:18270d3ba03effaec8d167ba02c7752d/04f110c98b1bfc48");
  }

  @Test
  void goldenDomain_eagleWorkerAlone() {
    EndpointMembership m = only(projector().project(List.of(base("prod/router/generate", 7,
        "\"display_name\":\"llama\",\"source_path\":\"meta/llama\",\"kv_cache_block_size\":512,"
            + "\"runtime_config\":{\"enable_eagle\":true}"))), "prod/router/generate");
    assertThat(m.domain().id().cacheSemantics().hex()).isEqualTo("deae03cf69f6e4a47cbec26ceba95354");
    assertThat(m.domain().querySemantics().hashFormat()).isEqualTo(KvQueryHashFormat.fromEnableEagle(true));
  }

  @Test
  void workedExample_standardPlusEagleOnOneEndpoint_multipleDomains() {
    EndpointMembership m = only(projector().project(List.of(
        base("prod/router/generate", 1,
            "\"display_name\":\"llama\",\"source_path\":\"meta/llama\",\"kv_cache_block_size\":512"),
        base("prod/router/generate", 2,
            "\"display_name\":\"llama\",\"source_path\":\"meta/llama\",\"kv_cache_block_size\":512,"
                + "\"runtime_config\":{\"enable_eagle\":true}"))), "prod/router/generate");
    assertThat(m.domain()).isNull();
    assertThat(m.conflicts()).containsExactly(conflict(ConflictScope.POOL_MATERIALIZATION,
        new ConflictSubject.Endpoint(ep("prod/router/generate")), "endpoint resolves to multiple indexer domains"));
    assertThat(m.isMaterializable()).isFalse();
    assertThat(m.isTopologyMember()).isTrue();
    assertThat(m.models()).containsExactly("llama");
  }

  @Test
  void workedExample_zeroBlockSizeCard_noDomainModelStillListed() {
    ModelRecord card = base("ns/c/e", 1, "\"display_name\":\"llama\",\"kv_cache_block_size\":0");
    EndpointMembership m = only(projector().project(List.of(card)), "ns/c/e");
    assertThat(m.domain()).isNull();
    assertThat(m.isMaterializable()).isFalse();
    assertThat(m.models()).containsExactly("llama");
    assertThat(m.conflicts()).hasSize(1);
    assertThat(m.conflicts().get(0).scope()).isEqualTo(ConflictScope.POOL_MATERIALIZATION);
    assertThat(m.conflicts().get(0).subject()).isEqualTo(new ConflictSubject.Card(card.key()));
  }

  @Test
  void multipleCanonicalBaseModels_servingTopologyConflict() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama")), base("ns/c/e", 2, simple("mixtral")))), "ns/c/e");
    assertThat(m.conflicts()).contains(conflict(ConflictScope.SERVING_TOPOLOGY,
        new ConflictSubject.Endpoint(ep("ns/c/e")), "endpoint resolves to multiple canonical base models"));
    assertThat(m.isMaterializable()).isFalse();
    assertThat(m.isTopologyMember()).isFalse();
  }

  @Test
  void workerWithTwoBaseCards_isSkippedWithServingTopologyConflict() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 5, simple("llama")),
        base("ns/c/e", 5, simple("llama") + ",\"aliases\":[\"x\"]"),
        base("ns/c/e", 6, simple("llama")))), "ns/c/e");
    assertThat(m.conflicts()).containsExactly(conflict(ConflictScope.SERVING_TOPOLOGY,
        new ConflictSubject.Worker(ep("ns/c/e"), 5), "worker publishes multiple base model cards"));
    assertThat(m.runtimeConfigs().keySet()).containsExactly(6L);
    assertThat(m.isMaterializable()).isFalse();
  }

  @Test
  void equalRecordsGivenTwiceCountOnce() {
    ModelRecord r = base("ns/c/e", 5, simple("llama"));
    EndpointMembership m = only(projector().project(List.of(r, r)), "ns/c/e");
    assertThat(m.conflicts()).isEmpty();
    assertThat(m.isMaterializable()).isTrue();
  }

  @Test
  void loraShapeMismatch_servingBindingConflictOnTheCard() {
    ModelRecord suffixOnly = adapter("ns/c/e", 1, "sfx", simple("x"));
    ModelRecord loraOnly = base("ns/c/e", 2, simple("llama") + ",\"lora\":{\"name\":\"a\"}");
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama")), suffixOnly, loraOnly)), "ns/c/e");
    String reason = "LoRA discovery identity and card metadata disagree";
    assertThat(m.conflicts()).containsExactlyInAnyOrder(
        conflict(ConflictScope.SERVING_BINDING, new ConflictSubject.Card(suffixOnly.key()), reason),
        conflict(ConflictScope.SERVING_BINDING, new ConflictSubject.Card(loraOnly.key()), reason));
    assertThat(m.isMaterializable()).isTrue();
    assertThat(m.runtimeConfigs().keySet()).containsExactly(1L);
  }

  @Test
  void adapterCard_registersLoraTargetWithCapacity_orphanIgnored() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama")),
        base("ns/c/e", 2, simple("llama")),
        adapter("ns/c/e", 1, "sql", simple("llama-sql") + ",\"lora\":{\"name\":\"sql-v1\",\"max_gpu_lora_count\":4}"),
        adapter("ns/c/e", 2, "sql", simple("llama-sql") + ",\"lora\":{\"name\":\"sql-v1\"}"),
        adapter("ns/c/e", 9, "orph", simple("orphan") + ",\"lora\":{\"name\":\"o\"}"))), "ns/c/e");
    assertThat(m.registrations()).containsExactly(
        new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of()),
        new ModelRegistration("llama-sql", new ModelTarget.Lora("llama", "sql-v1"), List.of()));
    AdapterMembership a = m.adapters().get("llama-sql");
    assertThat(a.baseModel()).isEqualTo("llama");
    assertThat(a.adapter()).isEqualTo("sql-v1");
    assertThat(a.workers()).containsExactly(
        java.util.Map.entry(1L, OptionalLong.of(4)), java.util.Map.entry(2L, OptionalLong.empty()));
    assertThat(m.conflicts()).isEmpty();
    assertThat(m.models()).containsExactly("llama", "llama-sql");
  }

  @Test
  void adapterServedNameWithDifferentAdapter_servingBindingConflict() {
    ModelRecord second = adapter("ns/c/e", 2, "b", simple("served") + ",\"lora\":{\"name\":\"other\"}");
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama")), base("ns/c/e", 2, simple("llama")),
        adapter("ns/c/e", 1, "a", simple("served") + ",\"lora\":{\"name\":\"one\"}"), second)), "ns/c/e");
    assertThat(m.conflicts()).containsExactly(conflict(ConflictScope.SERVING_BINDING,
        new ConflictSubject.Card(second.key()), "served adapter name resolves to conflicting targets"));
    assertThat(m.adapters().get("served").adapter()).isEqualTo("one");
    assertThat(m.isMaterializable()).isTrue();
  }

  @Test
  void workerReadvertisingDifferentAdapterCapacity_poolMaterializationConflict() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama")),
        adapter("ns/c/e", 1, "a", simple("served") + ",\"lora\":{\"name\":\"one\",\"max_gpu_lora_count\":1}"),
        adapter("ns/c/e", 1, "b", simple("served") + ",\"lora\":{\"name\":\"one\",\"max_gpu_lora_count\":2}"))),
        "ns/c/e");
    assertThat(m.conflicts()).containsExactly(conflict(ConflictScope.POOL_MATERIALIZATION,
        new ConflictSubject.Worker(ep("ns/c/e"), 1), "worker publishes conflicting adapter capacity"));
    assertThat(m.isMaterializable()).isFalse();
  }

  @Test
  void invalidAdapterIds_servingBindingConflict() {
    ModelRecord bad = adapter("ns/c/e", 1, "a", simple("served") + ",\"lora\":{\"name\":\" padded\"}");
    EndpointMembership m = only(projector().project(List.of(base("ns/c/e", 1, simple("llama")), bad)), "ns/c/e");
    assertThat(m.conflicts()).extracting(MembershipConflict::scope, MembershipConflict::subject)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ConflictScope.SERVING_BINDING,
            new ConflictSubject.Card(bad.key())));
    assertThat(m.adapters()).isEmpty();
  }

  @Test
  void invalidBaseModel_servingBindingConflictOnTheCard() {
    ModelRecord bad = base("ns/c/e", 1, "\"display_name\":\" llama\",\"kv_cache_block_size\":16");
    EndpointMembership m = only(projector().project(List.of(bad)), "ns/c/e");
    assertThat(m.conflicts()).containsExactly(conflict(ConflictScope.SERVING_BINDING,
        new ConflictSubject.Card(bad.key()), "invalid canonical model id"));
    assertThat(m.registrations()).isEmpty();
    assertThat(m.isMaterializable()).isFalse();
  }

  /** Upstream test {@code federated_alias_collision_is_omitted_from_every_endpoint}. */
  @Test
  void federatedAliasCollisionIsOmittedFromEveryEndpoint() {
    MembershipView view = projector().project(List.of(
        base("a/c/e", 1, simple("llama") + ",\"aliases\":[\"chat\",\"l\"]"),
        base("b/c/e", 1, simple("mixtral") + ",\"aliases\":[\"chat\",\"m\"]")));
    assertThat(only(view, "a/c/e").registrations()).containsExactly(
        new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of("l")));
    assertThat(only(view, "b/c/e").registrations()).containsExactly(
        new ModelRegistration("mixtral", new ModelTarget.Base("mixtral"), List.of("m")));
    assertThat(only(view, "a/c/e").conflicts()).isEmpty();
    assertThat(only(view, "b/c/e").conflicts()).isEmpty();
  }

  @Test
  void ambiguousModelName_claimDroppedWithBindingConflict() {
    MembershipView view = projector().project(List.of(
        base("a/c/e", 1, simple("x")),
        base("b/c/e", 1, simple("y") + ",\"aliases\":[\"x\",\"z\"]")));
    EndpointMembership a = only(view, "a/c/e");
    assertThat(a.registrations()).isEmpty();
    assertThat(a.conflicts()).containsExactly(conflict(ConflictScope.SERVING_BINDING,
        new ConflictSubject.Binding("x"), "model name is bound to multiple serving targets"));
    assertThat(a.isMaterializable()).isFalse();
    assertThat(only(view, "b/c/e").registrations()).containsExactly(
        new ModelRegistration("y", new ModelTarget.Base("y"), List.of("z")));
  }

  @Test
  void sameBaseModelOnTwoEndpoints_isNotAmbiguous() {
    MembershipView view = projector().project(List.of(
        base("a/c/e", 1, simple("llama") + ",\"aliases\":[\"l\"]"), base("b/c/e", 1, simple("llama"))));
    assertThat(only(view, "a/c/e").aliases()).containsExactly("l");
    assertThat(only(view, "b/c/e").registrations()).hasSize(1);
  }

  @Test
  void aliasesNormalized_invalidSelfAndDuplicatesDropped_unionedAcrossWorkers() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama") + ",\"aliases\":[\"b\",\"llama\",\"\",\" pad\",\"a\",\"b\"]"),
        base("ns/c/e", 2, simple("llama") + ",\"aliases\":[\"c\",\"a\"]"))), "ns/c/e");
    assertThat(m.registrations()).containsExactly(
        new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of("a", "b", "c")));
    assertThat(m.aliases()).containsExactly("a", "b", "c");
  }

  @Test
  void rolesSortedFromWorkerTypes() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama") + ",\"worker_type\":\"decode\""),
        base("ns/c/e", 2, simple("llama") + ",\"worker_type\":\"prefill\",\"needs\":[[\"decode\"]]"),
        base("ns/c/e", 3, simple("llama") + ",\"worker_type\":\"prefill|decode\""))), "ns/c/e");
    assertThat(m.roles()).containsExactly(WorkerRole.PREFILL, WorkerRole.DECODE, WorkerRole.AGGREGATED);
    assertThat(m.workerTopology().get(2L).needs()).containsExactly(List.of(WorkerRole.DECODE));
  }

  @Test
  void legacyPrefillNormalization_legacyPrefillCardBecomesPrefillNeedingDecode() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama") + ",\"model_type\":\"Prefill\""))), "ns/c/e");
    assertThat(m.roles()).containsExactly(WorkerRole.PREFILL);
    assertThat(m.workerTopology().get(1L).needs()).containsExactly(List.of(WorkerRole.DECODE));
  }

  /** Decision (§2.1 box "decoding model_type"): undecodable ⇒ does not support prefill; the card stays legacy. */
  @Test
  void decisionModelTypeDecoding_undecodableStaysLegacy() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama") + ",\"model_type\":\"Warp|Prefill\""))), "ns/c/e");
    assertThat(m.roles()).containsExactly(WorkerRole.LEGACY);
    assertThat(m.workerTopology().get(1L).modelType()).isEmpty();
  }

  /** Decision (§5.2 box "unit grouping key"): follow (b) — the worker topology carries model_type. */
  @Test
  void decisionUnitGroupingKey_workerTopologyIncludesModelType() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama") + ",\"worker_type\":\"decode\",\"model_type\":\"Chat\""),
        base("ns/c/e", 2, simple("llama") + ",\"worker_type\":\"decode\",\"model_type\":\"Chat|Completions\""))),
        "ns/c/e");
    assertThat(m.workerTopology().get(1L)).isNotEqualTo(m.workerTopology().get(2L));
    assertThat(m.workerTopology().get(1L).modelType()).hasValue(1);
    assertThat(m.workerTopology().get(2L).modelType()).hasValue(3);
  }

  /** Decision (§2.3 box "topology conflict filter"): follow (b), one test per scope. */
  @Test
  void decisionTopologyConflictFilter_servingTopologyRemovesMember() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, simple("llama")), base("ns/c/e", 2, simple("mixtral")))), "ns/c/e");
    assertThat(m.isTopologyMember()).isFalse();
  }

  /** Decision (§2.3 box): follow (b) — PoolMaterialization keeps the member but blocks the pool. */
  @Test
  void decisionTopologyConflictFilter_poolMaterializationKeepsMember() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, "\"display_name\":\"llama\",\"kv_cache_block_size\":0"))), "ns/c/e");
    assertThat(m.isTopologyMember()).isTrue();
    assertThat(m.isMaterializable()).isFalse();
  }

  /** Decision (§2.3 box): follow (b) — ServingBinding omits only the binding. */
  @Test
  void decisionTopologyConflictFilter_servingBindingKeepsMemberAndPool() {
    EndpointMembership m = only(projector().project(List.of(base("ns/c/e", 1, simple("llama")),
        adapter("ns/c/e", 1, "s", simple("x")))), "ns/c/e");
    assertThat(m.conflicts()).extracting(MembershipConflict::scope).containsExactly(ConflictScope.SERVING_BINDING);
    assertThat(m.isTopologyMember()).isTrue();
    assertThat(m.isMaterializable()).isTrue();
  }

  @Test
  void generation_startsAtOneAndIsKeptWhenNothingChanged() {
    MembershipProjector p = projector();
    List<ModelRecord> cards = List.of(base("a/c/e", 1, simple("llama")), base("b/c/e", 1, simple("mixtral")));
    MembershipView first = p.project(cards);
    assertThat(only(first, "a/c/e").generation()).isEqualTo(1);
    assertThat(only(first, "b/c/e").generation()).isEqualTo(2);
    MembershipView second = p.project(List.of(cards.get(1), cards.get(0)));
    assertThat(second).isEqualTo(first);
  }

  @Test
  void generation_changedMembershipTakesNextGeneration_othersKeepTheirs() {
    MembershipProjector p = projector();
    p.project(List.of(base("a/c/e", 1, simple("llama")), base("b/c/e", 1, simple("mixtral"))));
    MembershipView v = p.project(List.of(base("a/c/e", 1, simple("llama") + ",\"aliases\":[\"l\"]"),
        base("b/c/e", 1, simple("mixtral"))));
    assertThat(only(v, "a/c/e").generation()).isEqualTo(3);
    assertThat(only(v, "b/c/e").generation()).isEqualTo(2);
  }

  @Test
  void generation_endpointThatDisappearsAndReappearsGetsANewGeneration() {
    MembershipProjector p = projector();
    ModelRecord card = base("a/c/e", 1, simple("llama"));
    p.project(List.of(card));
    assertThat(p.project(List.of()).endpoints()).isEmpty();
    assertThat(only(p.project(List.of(card)), "a/c/e").generation()).isEqualTo(2);
  }

  /** §2.5 with the §1.3 explicit-identity vectors: same explicit maps on two endpoints ⇒ same PoolId. */
  @Test
  void collidingPoolIds_everyCollidingEndpointIsFenced() {
    String shared = simple("llama").replace("16", "512") + ",\"indexer_identity\":{\"semantics\":{\"authority\":"
        + "\"shared\"},\"routing_scope\":{\"authority\":\"shared\"}}";
    MembershipView view = projector().project(List.of(
        base("a/c/e", 1, shared), base("b/c/e", 1, shared), base("c/c/e", 1, simple("other"))));
    String reason = "pool 7fa9d8c0ccc742baf1482cc003a26faa:bb0a749fe11ddde6380ff04c6d091c4b/04f110c98b1bfc48 "
        + "is claimed by multiple serving endpoints";
    for (String e : List.of("a/c/e", "b/c/e")) {
      assertThat(only(view, e).conflicts()).containsExactly(
          conflict(ConflictScope.POOL_MATERIALIZATION, new ConflictSubject.Endpoint(ep(e)), reason));
      assertThat(only(view, e).isMaterializable()).isFalse();
    }
    assertThat(only(view, "c/c/e").isMaterializable()).isTrue();
    assertThat(view.materializable().keySet()).containsExactly(ep("c/c/e"));
  }

  /** §8.1 example: {@code prod-a.backend} matches {@code prod-a.backend.generate}, not {@code prod-a.backend2.generate}. */
  @Test
  void scopeFilter_endpointPrefixMatchesWholeSegments() throws Exception {
    MembershipProjector p = new MembershipProjector(DC_A,
        DiscoveryScope.namespaces(List.of("prod-a"), List.of("prod-a.backend")));
    MembershipView view = p.project(List.of(base("prod-a/backend/generate", 1, simple("a")),
        base("prod-a/backend2/generate", 1, simple("b")), base("other/backend/generate", 1, simple("c"))));
    assertThat(view.endpoints().keySet()).containsExactly(ep("prod-a/backend/generate"));
  }

  @Test
  void conflictsSortedByDebugText() {
    EndpointMembership m = only(projector().project(List.of(
        base("ns/c/e", 1, "\"display_name\":\"llama\",\"kv_cache_block_size\":0"),
        base("ns/c/e", 2, simple("mixtral")))), "ns/c/e");
    assertThat(m.conflicts()).hasSize(2);
    assertThat(m.conflicts().get(0).debugText()).startsWith("PoolMaterialization ");
    assertThat(m.conflicts().get(1).debugText()).startsWith("ServingTopology ");
  }
}
