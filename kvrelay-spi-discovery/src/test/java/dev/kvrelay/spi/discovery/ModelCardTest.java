package dev.kvrelay.spi.discovery;

import static dev.kvrelay.spi.discovery.TestRecords.ep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.ExplicitIdentityMap;
import dev.kvrelay.api.IndexerIdentity;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Card fields of producer.md §2.1 / runtime-inputs.md §4, and the model_type decision box. */
class ModelCardTest {

  static ModelCard card(String json) throws Exception {
    return ModelCard.fromJson((JsonObject) Json.parse(json));
  }

  static DiscoveryDecodeException rejection(String json) {
    return catchThrowableOfType(DiscoveryDecodeException.class, () -> card(json));
  }

  @Test
  void minimalCardTakesEveryDefault() throws Exception {
    ModelCard c = card("{\"display_name\":\"Qwen/Qwen3-0.6B\",\"kv_cache_block_size\":16}");
    assertThat(c.displayName()).isEqualTo("Qwen/Qwen3-0.6B");
    assertThat(c.sourcePath()).isNull();
    assertThat(c.modelArtifact()).isEqualTo("Qwen/Qwen3-0.6B");
    assertThat(c.aliases()).isEmpty();
    assertThat(c.workerType()).isEqualTo(WorkerRole.LEGACY);
    assertThat(c.needs()).isEmpty();
    assertThat(c.modelType()).isNull();
    assertThat(c.lora()).isNull();
    assertThat(c.indexerSemantics()).isNull();
    assertThat(c.indexerRoutingScope()).isNull();
    // runtime-inputs.md §4.2 defaults.
    RuntimeConfig rc = c.runtimeConfig();
    assertThat(rc.dataParallelStartRank()).isZero();
    assertThat(rc.dataParallelSize()).isEqualTo(1);
    assertThat(rc.totalKvBlocks()).isEmpty();
    assertThat(rc.maxNumSeqs()).isEmpty();
    assertThat(rc.maxNumBatchedTokens()).isEmpty();
    assertThat(rc.enableLocalIndexer()).isTrue();
    assertThat(rc.kvEventPublishingEnabled()).isNull();
    assertThat(rc.eventSourceMode()).isEqualTo(KvEventSourceMode.LEGACY_WORKER_ONLY);
    assertThat(rc.kvStateEndpoint()).isNull();
    assertThat(rc.enableEagle()).isFalse();
    assertThat(rc.taints()).isEmpty();
    assertThat(rc).isEqualTo(RuntimeConfig.DEFAULT);
    assertThat(c.hashFormat()).isEqualTo(KvQueryHashFormat.DYNAMO_STANDARD_V1);
  }

  @Test
  void fullCardDecodesEveryConsumedField() throws Exception {
    ModelCard c = card("{\"display_name\":\"llama-lora\",\"slug\":\"llama-lora\",\"source_path\":\"meta/llama\","
        + "\"kv_cache_block_size\":512,\"aliases\":[\"a1\",\"a2\"],\"worker_type\":\"Prefill\","
        + "\"needs\":[[\"decode\"],[\"prefill\",\"decode\"],[\"aggregated\"]],\"model_type\":\"Chat | Completions\","
        + "\"model_input\":\"Tokens\",\"migration_limit\":3,\"user_data\":{\"x\":1},"
        + "\"lora\":{\"name\":\"customer-123\",\"max_gpu_lora_count\":4},"
        + "\"indexer_identity\":{\"semantics\":{\"weights\":\"revision-a\",\"mapping\":\"tp2\"},\"routing_scope\":{\"authority\":\"shared\"}},"
        + "\"runtime_config\":{\"total_kv_blocks\":18446744073709551615,\"max_num_seqs\":256,\"max_num_batched_tokens\":8192,"
        + "\"context_length\":32768,\"data_parallel_start_rank\":4,\"data_parallel_size\":4,\"enable_local_indexer\":false,"
        + "\"kv_event_publishing_enabled\":true,\"kv_event_source_mode\":\"state_agent_v2\","
        + "\"kv_state_endpoint\":{\"namespace\":\"prod\",\"component\":\"state\",\"name\":\"kv\"},"
        + "\"enable_eagle\":true,\"taints\":[\"dynamo.topology/zone=a\"],\"topology_domains\":{\"zone\":\"a\"}}}");
    assertThat(c.sourcePath()).isEqualTo("meta/llama");
    assertThat(c.modelArtifact()).isEqualTo("meta/llama");
    assertThat(c.kvCacheBlockSize()).isEqualTo(512);
    assertThat(c.aliases()).containsExactly("a1", "a2");
    assertThat(c.workerType()).isEqualTo(WorkerRole.PREFILL);
    assertThat(c.needs()).containsExactly(
        List.of(WorkerRole.DECODE), List.of(WorkerRole.PREFILL, WorkerRole.DECODE), List.of(WorkerRole.AGGREGATED));
    assertThat(c.lora()).isEqualTo(new ModelCard.Lora("customer-123", OptionalLong.of(4)));
    assertThat(c.isAdapter()).isTrue();
    assertThat(c.indexerSemantics()).isEqualTo(ExplicitIdentityMap.of(Map.of("mapping", "tp2", "weights", "revision-a")));
    assertThat(c.indexerRoutingScope()).isEqualTo(ExplicitIdentityMap.of(Map.of("authority", "shared")));
    RuntimeConfig rc = c.runtimeConfig();
    assertThat(rc.totalKvBlocks()).hasValue(-1L);
    assertThat(rc.maxNumSeqs()).hasValue(256);
    assertThat(rc.maxNumBatchedTokens()).hasValue(8192);
    assertThat(rc.dataParallelStartRank()).isEqualTo(4);
    assertThat(rc.dataParallelSize()).isEqualTo(4);
    assertThat(rc.lastRank()).isEqualTo(7);
    assertThat(rc.enableLocalIndexer()).isFalse();
    assertThat(rc.kvEventPublishingEnabled()).isTrue();
    assertThat(rc.eventSourceMode()).isEqualTo(KvEventSourceMode.STATE_AGENT_V2);
    assertThat(rc.kvStateEndpoint()).isEqualTo(ep("prod", "state", "kv"));
    assertThat(rc.effectiveKvStateEndpoint(ep("prod", "router", "generate"))).isEqualTo(ep("prod", "state", "kv"));
    assertThat(rc.enableEagle()).isTrue();
    assertThat(c.hashFormat()).isEqualTo(KvQueryHashFormat.DYNAMO_EAGLE_V1);
    assertThat(rc.taints()).containsExactly("dynamo.topology/zone=a");
  }

  @Test
  void explicitIdentityMapsFeedTheSpecGoldenVector() throws Exception {
    // producer.md §1.3: cache explicit {mapping: tp2, weights: revision-a}, 512, Standard → a02dfb3f…
    ModelCard c = card("{\"display_name\":\"m\",\"kv_cache_block_size\":512,"
        + "\"indexer_identity\":{\"semantics\":{\"weights\":\"revision-a\",\"mapping\":\"tp2\"}}}");
    var domain = IndexerIdentity.fromCard(c.sourcePath(), c.displayName(), c.kvCacheBlockSize(),
        c.runtimeConfig().enableEagle(), ep("prod", "router", "generate"), c.indexerSemantics(), c.indexerRoutingScope());
    assertThat(domain.cacheSemantics().hex()).isEqualTo("a02dfb3f65eca4e06e837a96902938fd");
    // Default routing scope of prod/router/generate: 18270d3b… (upstream golden vector).
    assertThat(domain.routingScope().hex()).isEqualTo("18270d3ba03effaec8d167ba02c7752d");
  }

  @Test
  void nullMeansAbsent() throws Exception {
    ModelCard c = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"source_path\":null,\"worker_type\":null,"
        + "\"needs\":null,\"aliases\":null,\"lora\":null,\"model_type\":null,\"indexer_identity\":null,\"runtime_config\":null}");
    assertThat(c).isEqualTo(card("{\"display_name\":\"m\",\"kv_cache_block_size\":16}"));
    ModelCard rc = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"data_parallel_size\":null,"
        + "\"enable_local_indexer\":null,\"taints\":null,\"kv_state_endpoint\":null}}");
    assertThat(rc.runtimeConfig()).isEqualTo(RuntimeConfig.DEFAULT);
  }

  @Test
  void workerTypeParsingFollowsWorkerRole() throws Exception {
    assertThat(card("{\"display_name\":\"m\",\"kv_cache_block_size\":1,\"worker_type\":\"prefill|decode\"}").workerType())
        .isEqualTo(WorkerRole.AGGREGATED);
    assertThat(card("{\"display_name\":\"m\",\"kv_cache_block_size\":1,\"worker_type\":\"ENCODE\"}").workerType())
        .isEqualTo(WorkerRole.ENCODE);
    assertThat(rejection("{\"display_name\":\"m\",\"kv_cache_block_size\":1,\"worker_type\":\"router\"}").field())
        .isEqualTo("worker_type");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "missing display_name      | {\"kv_cache_block_size\":16}                                                  | MISSING_FIELD | display_name",
    "missing block size        | {\"display_name\":\"m\"}                                                      | MISSING_FIELD | kv_cache_block_size",
    "block size not u32        | {\"display_name\":\"m\",\"kv_cache_block_size\":4294967296}                   | INVALID_VALUE | kv_cache_block_size",
    "negative block size       | {\"display_name\":\"m\",\"kv_cache_block_size\":-16}                          | INVALID_VALUE | kv_cache_block_size",
    "display_name number       | {\"display_name\":7,\"kv_cache_block_size\":16}                               | WRONG_TYPE    | display_name",
    "alias not a string        | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"aliases\":[\"a\",1]}     | WRONG_TYPE    | aliases[1]",
    "needs not DNF             | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"needs\":[\"decode\"]}    | WRONG_TYPE    | needs[0]",
    "needs unknown type        | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"needs\":[[\"decode\",\"gpu\"]]} | INVALID_VALUE | needs[0][1]",
    "lora without name         | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"lora\":{}}               | MISSING_FIELD | lora.name",
    "dp size 0                 | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"data_parallel_size\":0}}    | INVALID_VALUE | runtime_config.data_parallel_size",
    "dp size 4097              | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"data_parallel_size\":4097}} | INVALID_VALUE | runtime_config.data_parallel_size",
    "ranks beyond u32          | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"data_parallel_start_rank\":4294967295,\"data_parallel_size\":2}} | INVALID_VALUE | runtime_config.data_parallel_start_rank",
    "taint not a string        | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"taints\":[true]}}         | WRONG_TYPE | runtime_config.taints[0]",
    "eagle not a boolean       | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"enable_eagle\":\"yes\"}}  | WRONG_TYPE | runtime_config.enable_eagle",
    "runtime_config not object | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":[]}                          | WRONG_TYPE | runtime_config",
    "kv_state_endpoint blank   | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"kv_state_endpoint\":{\"namespace\":\" \",\"component\":\"c\",\"name\":\"e\"}}} | INVALID_VALUE | runtime_config.kv_state_endpoint.namespace",
    "explicit map empty        | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"indexer_identity\":{\"semantics\":{}}}         | INVALID_VALUE | indexer_identity.semantics",
    "explicit value not string | {\"display_name\":\"m\",\"kv_cache_block_size\":16,\"indexer_identity\":{\"routing_scope\":{\"k\":1}}} | WRONG_TYPE | indexer_identity.routing_scope.k",
  })
  void malformedCardsAreRejectedWithTheField(String name, String json, DiscoveryDecodeException.Reason reason, String field) {
    DiscoveryDecodeException e = rejection(json);
    assertThat(e).as(name).isNotNull();
    assertThat(e.reason()).as(name).isEqualTo(reason);
    assertThat(e.field()).as(name).isEqualTo(field);
  }

  @Test
  void zeroBlockSizeDecodesSoTheProjectionCanReportIt() throws Exception {
    // producer.md §2.3: zero block size is a PoolMaterialization conflict, not a skipped card.
    assertThat(card("{\"display_name\":\"m\",\"kv_cache_block_size\":0}").kvCacheBlockSize()).isZero();
  }

  @Test
  void unknownEventSourceModeIsKeptAndClassified() throws Exception {
    ModelCard c = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"kv_event_source_mode\":\"v3\"}}");
    assertThat(c.runtimeConfig().kvEventSourceMode()).isEqualTo("v3");
    assertThat(c.runtimeConfig().eventSourceMode()).isEqualTo(KvEventSourceMode.UNKNOWN);
    assertThat(KvEventSourceMode.of("framework_v1")).isEqualTo(KvEventSourceMode.FRAMEWORK_V1);
  }

  /**
   * Decision box producer.md §2.1 "decoding model_type" — pinned here. Accepted encodings of upstream's
   * bitflags ModelType (Prefill = 1 << 4): the bitflags-2 text form (names, case-insensitive, "|"-joined,
   * 0x-hex terms), a u8 integer, the bitflags-1 {"bits": n} object and an array of names. Anything else is
   * undecodable and means "does not support prefill". No golden card from a live prefill worker was
   * available; replace these rows with one when captured.
   */
  @ParameterizedTest(name = "model_type {0} → prefill {1}")
  @CsvSource(delimiter = ';', value = {
    "\"Prefill\"                     ; true  ; false",
    "\"Chat | Completions | Prefill\" ; true  ; false",
    "\"chat|prefill\"                ; true  ; false",
    "\"Chat | Completions\"          ; false ; false",
    "\"0x10\"                        ; true  ; false",
    "\"Chat | 0x10\"                 ; true  ; false",
    "\"\"                            ; false ; false",
    "16                              ; true  ; false",
    "19                              ; true  ; false",
    "3                               ; false ; false",
    "{\"bits\":16}                   ; true  ; false",
    "{\"bits\":2}                    ; false ; false",
    "[\"chat\",\"prefill\"]          ; true  ; false",
    "\"Prefil\"                      ; false ; true",
    "\"Prefill | Speculative\"       ; false ; true",
    "256                             ; false ; true",
    "-16                             ; false ; true",
    "16.0                            ; false ; true",
    "true                            ; false ; true",
    "{\"bits\":16,\"x\":1}           ; false ; true",
    "[\"prefill\",7]                 ; false ; true",
    "\"0x100\"                       ; false ; true",
  })
  void decisionModelTypeDecodingForPrefillCapability(String modelType, boolean prefill, boolean undecodable)
      throws Exception {
    ModelCard c = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"model_type\":" + modelType + "}");
    assertThat(c.supportsPrefill()).isEqualTo(prefill);
    assertThat(c.hasUndecodableModelType()).isEqualTo(undecodable);
  }

  @Test
  void legacyPrefillNormalisation() throws Exception {
    // producer.md §2.1: worker_type absent AND model_type supports prefill → prefill; needs empty → [[decode]].
    ModelCard legacyPrefill = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"model_type\":\"Prefill\"}");
    ModelCard n = legacyPrefill.normalizedLegacyPrefill();
    assertThat(n.workerType()).isEqualTo(WorkerRole.PREFILL);
    assertThat(n.needs()).containsExactly(List.of(WorkerRole.DECODE));

    ModelCard withNeeds = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"model_type\":\"Prefill\","
        + "\"needs\":[[\"aggregated\"]]}").normalizedLegacyPrefill();
    assertThat(withNeeds.workerType()).isEqualTo(WorkerRole.PREFILL);
    assertThat(withNeeds.needs()).containsExactly(List.of(WorkerRole.AGGREGATED));

    ModelCard legacyChat = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"model_type\":\"Chat\"}");
    assertThat(legacyChat.normalizedLegacyPrefill()).isSameAs(legacyChat);
    ModelCard legacyUndecodable = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"model_type\":\"???\"}");
    assertThat(legacyUndecodable.normalizedLegacyPrefill().workerType()).isEqualTo(WorkerRole.LEGACY);
    ModelCard declaredDecode = card("{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"model_type\":\"Prefill\","
        + "\"worker_type\":\"decode\"}");
    assertThat(declaredDecode.normalizedLegacyPrefill()).isSameAs(declaredDecode);
  }

  @Test
  void taintsPatchTouchesOnlyTaintsInCardAndRawJson() throws Exception {
    String json = "{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"enable_eagle\":true,\"taints\":[\"a\"]},\"extra\":1}";
    ModelRecord r = ModelRecord.of(new ModelKey(ep("n", "c", "e"), 1, null), (JsonObject) Json.parse(json));
    ModelRecord patched = r.withTaints(List.of("b", "c"));
    assertThat(patched.card()).isEqualTo(r.card().withTaints(List.of("b", "c")));
    assertThat(patched.card().runtimeConfig().enableEagle()).isTrue();
    assertThat(patched.rawCard()).isEqualTo(Json.parse(
        "{\"display_name\":\"m\",\"kv_cache_block_size\":16,\"runtime_config\":{\"enable_eagle\":true,\"taints\":[\"b\",\"c\"]},\"extra\":1}"));
    ModelRecord noConfig = ModelRecord.of(new ModelKey(ep("n", "c", "e"), 1, null),
        (JsonObject) Json.parse("{\"display_name\":\"m\",\"kv_cache_block_size\":16}"));
    assertThat(noConfig.withTaints(List.of("t")).rawCard().get("runtime_config")).isEqualTo(Json.parse("{\"taints\":[\"t\"]}"));
    assertThat(ModelCard.fromJson(noConfig.withTaints(List.of("t")).rawCard())).isEqualTo(noConfig.withTaints(List.of("t")).card());
  }
}
