package dev.kvrelay.api;

import static dev.kvrelay.api.WireValidationException.Kind.MALFORMED;
import static dev.kvrelay.api.WireValidationException.Kind.UNSUPPORTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.WireValidationException.Kind;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One assertion per wan-grpc.md §1.8 rule that concerns these types, with the expected
 * {@link Kind}, including the vectors.md §10.2 rows.
 */
class WireValidationTest {

  interface WireCall {
    Object call() throws WireValidationException;
  }

  static WireValidationException rejected(WireCall call) {
    WireValidationException e = catchThrowableOfType(WireValidationException.class, call::call);
    assertThat(e).as("expected a WireValidationException").isNotNull();
    return e;
  }

  static void assertRejected(Kind kind, String field, WireCall call) {
    WireValidationException e = rejected(call);
    assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind);
    assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
  }

  // ---- valid wire shapes, each test breaks exactly one thing --------------------------------------

  static byte[] d16(int fill) {
    byte[] d = new byte[16];
    Arrays.fill(d, (byte) fill);
    return d;
  }

  static DigestIdentity.Wire digest(byte[] bytes, int source) {
    return new DigestIdentity.Wire(bytes, source);
  }

  static IndexerDomainId.Wire domain() {
    return new IndexerDomainId.Wire(digest(d16(1), 1), digest(d16(2), 2));
  }

  static KvPoolId.Wire pool(int version, IndexerDomainId.Wire domain) {
    return new KvPoolId.Wire(version, domain, 0xFEDC_BA98_7654_3210L);
  }

  static CkfFormat.Wire ckf(int version, long buckets, int fp, int slots) {
    return new CkfFormat.Wire(version, CkfFormat.DEFAULT_SEED, buckets, fp, slots);
  }

  static ProducerIdentity.Wire producer(KvPoolId.Wire pool, long generation, CkfFormat.Wire format) {
    return new ProducerIdentity.Wire(pool, 42, generation, format);
  }

  static ProducerIdentity.Wire validProducer() {
    return producer(pool(1, domain()), 7, ckf(1, 1024, 16, 4));
  }

  @Test
  void validProducerKeyIsAccepted() throws Exception {
    ProducerIdentity id = ProducerIdentity.fromWire(validProducer());
    assertThat(id.poolId().indexerDomain().cacheSemantics().digest()).isEqualTo(d16(1));
    assertThat(id.poolId().indexerDomain().cacheSemantics().source()).isEqualTo(IdentitySource.DEFAULT_DERIVED);
    assertThat(id.poolId().indexerDomain().routingScope().source()).isEqualTo(IdentitySource.EXPLICIT);
    assertThat(id.poolId().dcId().value()).isEqualTo(0xFEDC_BA98_7654_3210L);
    assertThat(id.producerIncarnation()).isEqualTo(42);
    assertThat(id.layoutGeneration()).isEqualTo(7);
    assertThat(id.ckfFormat()).isEqualTo(CkfFormat.withDefaultSeed(1024));
  }

  @Nested
  class PoolIdRules {
    @Test
    void identityVersion0IsMalformed() {
      assertRejected(MALFORMED, "pool_id.identity_version", () -> KvPoolId.fromWire(pool(0, domain())));
    }

    @Test
    void identityVersion2IsUnsupported() {
      assertRejected(UNSUPPORTED, "pool_id.identity_version", () -> KvPoolId.fromWire(pool(2, domain())));
    }

    @Test
    void identityVersionU32MaxIsUnsupported() {
      assertRejected(UNSUPPORTED, "pool_id.identity_version", () -> KvPoolId.fromWire(-1, domain(), 0));
    }

    @Test
    void poolIdMissingIsMalformed() {
      assertRejected(MALFORMED, "pool_id", () -> KvPoolId.fromWire((KvPoolId.Wire) null));
    }

    @Test
    void indexerDomainMissingIsMalformed() {
      assertRejected(MALFORMED, "pool_id.indexer_domain", () -> KvPoolId.fromWire(pool(1, null)));
    }

    @Test
    void cacheSemanticsMissingIsMalformed() {
      assertRejected(MALFORMED, "pool_id.indexer_domain.cache_semantics",
          () -> KvPoolId.fromWire(pool(1, new IndexerDomainId.Wire(null, digest(d16(2), 1)))));
    }

    @Test
    void routingScopeMissingIsMalformed() {
      assertRejected(MALFORMED, "pool_id.indexer_domain.routing_scope",
          () -> KvPoolId.fromWire(pool(1, new IndexerDomainId.Wire(digest(d16(1), 1), null))));
    }

    @Test
    void vectors10_2_fifteenByteDigestIsMalformed() {
      assertRejected(MALFORMED, "pool_id.indexer_domain.cache_semantics.digest", () -> KvPoolId.fromWire(
          pool(1, new IndexerDomainId.Wire(digest(new byte[15], 1), digest(d16(2), 1)))));
    }

    @Test
    void seventeenByteAndEmptyDigestsAreMalformed() {
      assertRejected(MALFORMED, "pool_id.indexer_domain.routing_scope.digest", () -> KvPoolId.fromWire(
          pool(1, new IndexerDomainId.Wire(digest(d16(1), 1), digest(new byte[17], 1)))));
      assertRejected(MALFORMED, "digest", () -> DigestIdentity.fromWire(new byte[0], 1));
      assertRejected(MALFORMED, "digest", () -> DigestIdentity.fromWire(null, 1));
    }

    @Test
    void vectors10_2_unspecifiedSourceIsMalformed() {
      assertRejected(MALFORMED, "pool_id.indexer_domain.routing_scope.source", () -> KvPoolId.fromWire(
          pool(1, new IndexerDomainId.Wire(digest(d16(1), 1), digest(d16(2), 0)))));
    }

    @Test
    void unknownSourceIsUnsupported() {
      assertRejected(UNSUPPORTED, "source", () -> DigestIdentity.fromWire(d16(1), 3));
      assertRejected(UNSUPPORTED, "source", () -> DigestIdentity.fromWire(d16(1), -1));
      assertRejected(UNSUPPORTED, "source", () -> IdentitySource.fromWire(99));
    }

    @Test
    void identityVersionIsCheckedBeforeTheDomain() {
      assertRejected(UNSUPPORTED, "pool_id.identity_version", () -> KvPoolId.fromWire(pool(2, null)));
    }
  }

  @Nested
  class ProducerKeyRules {
    @Test
    void producerKeyMissingIsMalformed() {
      assertRejected(MALFORMED, "producer", () -> ProducerIdentity.fromWire(null));
    }

    @Test
    void layoutGeneration0IsMalformed() {
      assertRejected(MALFORMED, "layout_generation",
          () -> ProducerIdentity.fromWire(producer(pool(1, domain()), 0, ckf(1, 1024, 16, 4))));
    }

    @Test
    void ckfFormatMissingIsMalformed() {
      assertRejected(MALFORMED, "ckf_format", () -> ProducerIdentity.fromWire(producer(pool(1, domain()), 1, null)));
    }

    @Test
    void rulesApplyInContractOrder() {
      // pool-id rules before layout_generation, layout_generation before ckf_format.
      assertRejected(UNSUPPORTED, "pool_id.identity_version",
          () -> ProducerIdentity.fromWire(producer(pool(9, domain()), 0, null)));
      assertRejected(MALFORMED, "pool_id", () -> ProducerIdentity.fromWire(producer(null, 0, null)));
      assertRejected(MALFORMED, "layout_generation",
          () -> ProducerIdentity.fromWire(producer(pool(1, domain()), 0, ckf(2, 3, 8, 2))));
    }

    @Test
    void ckfZeroFieldCheckRunsFirst() {
      // format_version 2 would be unsupported, but bucket_count 0 is found first.
      assertRejected(MALFORMED, "ckf_format",
          () -> ProducerIdentity.fromWire(producer(pool(1, domain()), 1, ckf(2, 0, 16, 4))));
    }

    @Test
    void vectors10_2_bucketCount3IsMalformed() {
      assertRejected(MALFORMED, "ckf_format.bucket_count",
          () -> ProducerIdentity.fromWire(producer(pool(1, domain()), 1, ckf(1, 3, 16, 4))));
    }

    @Test
    void bucketCountAbove2pow24IsUnsupported() {
      assertRejected(UNSUPPORTED, "ckf_format.bucket_count",
          () -> ProducerIdentity.fromWire(producer(pool(1, domain()), 1, ckf(1, 1L << 25, 16, 4))));
    }

    @Test
    void bucketCountBeyondIntIsUnsupported() {
      assertRejected(UNSUPPORTED, "ckf_format.bucket_count",
          () -> ProducerIdentity.fromWire(producer(pool(1, domain()), 1, ckf(1, -1L, 16, 4))));
    }

    @Test
    void fixedCkfFieldsAreUnsupported() {
      assertRejected(UNSUPPORTED, "ckf_format.format_version", () -> CkfFormat.fromWire(ckf(2, 1024, 16, 4)));
      assertRejected(UNSUPPORTED, "ckf_format.fingerprint_bits", () -> CkfFormat.fromWire(ckf(1, 1024, 8, 4)));
      assertRejected(UNSUPPORTED, "ckf_format.slots_per_bucket", () -> CkfFormat.fromWire(ckf(1, 1024, 16, 8)));
      assertRejected(UNSUPPORTED, "ckf_format.format_version", () -> CkfFormat.fromWire(ckf(-1, 1024, 16, 4)));
    }
  }

  @Nested
  class CkfFormatValidateTable {
    @ParameterizedTest(name = "validate(v={0}, buckets={1}, fp={2}, slots={3}) -> {4}")
    @CsvSource({
      // version, bucket_count, fingerprint_bits, slots_per_bucket, expected
      "1, 2,                    16, 4, OK",
      "1, 1024,                 16, 4, OK",
      "1, 16777216,             16, 4, OK",
      "0, 1024,                 16, 4, MALFORMED",
      "1, 0,                    16, 4, MALFORMED",
      "1, 1024,                 0,  4, MALFORMED",
      "1, 1024,                 16, 0, MALFORMED",
      "2, 0,                    16, 4, MALFORMED",
      "0, 3,                    8,  2, MALFORMED",
      "2, 1024,                 16, 4, UNSUPPORTED",
      "1, 1024,                 32, 4, UNSUPPORTED",
      "1, 1024,                 16, 2, UNSUPPORTED",
      "2, 3,                    16, 4, UNSUPPORTED",
      "1, 33554432,             16, 4, UNSUPPORTED",
      "1, 16777217,             16, 4, UNSUPPORTED",
      "1, 4294967296,           16, 4, UNSUPPORTED",
      "1, 18446744073709551615, 16, 4, UNSUPPORTED",
      "1, 1,                    16, 4, MALFORMED",
      "1, 3,                    16, 4, MALFORMED",
      "1, 1000,                 16, 4, MALFORMED",
      "1, 16777215,             16, 4, MALFORMED",
      "4294967295, 1024,        16, 4, UNSUPPORTED",
    })
    void validate(String version, String buckets, String fp, String slots, String expected) {
      WireCall call = () -> CkfFormat.validate(Long.parseUnsignedLong(version), 77L,
          Long.parseUnsignedLong(buckets), Long.parseUnsignedLong(fp), Long.parseUnsignedLong(slots));
      if (expected.equals("OK")) {
        try {
          CkfFormat f = (CkfFormat) call.call();
          assertThat(f.bucketCount()).isEqualTo(Integer.parseInt(buckets));
          assertThat(f.seed()).isEqualTo(77L);
        } catch (WireValidationException e) {
          throw new AssertionError(e);
        }
      } else {
        assertThat(rejected(call).kind()).isEqualTo(Kind.valueOf(expected));
      }
    }
  }

  @Nested
  class TextRules {
    @Test
    void emptyEndpointPartIsMalformed() {
      assertRejected(MALFORMED, "component", () -> DynamoEndpointId.fromWire("prod", "", "generate"));
    }

    @Test
    void whitespaceSurroundedEndpointPartIsMalformed() {
      assertRejected(MALFORMED, "namespace", () -> DynamoEndpointId.fromWire(" prod", "router", "generate"));
      assertRejected(MALFORMED, "endpoint", () -> DynamoEndpointId.fromWire("prod", "router", "generate\n"));
      assertRejected(MALFORMED, "endpoint", () -> DynamoEndpointId.fromWire("prod", "router", "generate\u00A0"));
    }

    @Test
    void missingTextIsMalformed() {
      assertRejected(MALFORMED, "namespace", () -> DynamoEndpointId.fromWire(null, "router", "generate"));
    }

    @Test
    void innerWhitespaceIsAllowed() throws Exception {
      assertThat(DynamoEndpointId.fromWire("my ns", "a b", "c\td").namespace()).isEqualTo("my ns");
    }
  }

  @Nested
  class ModelRegistrationRules {
    @Test
    void targetMissingIsMalformed() {
      assertRejected(MALFORMED, "target", () -> ModelRegistration.fromWire("llama", null, null, null, List.of()));
    }

    @Test
    void oneofUnsetIsUnsupported() {
      assertRejected(UNSUPPORTED, "target",
          () -> ModelRegistration.fromWire("llama", ModelTarget.WireCase.NOT_SET, null, null, List.of()));
    }

    @Test
    void duplicateAliasIsMalformed() {
      assertRejected(MALFORMED, "aliases", () -> ModelRegistration.fromWire(
          "llama", ModelTarget.WireCase.BASE, "llama", null, List.of("chat", "assistant", "chat")));
    }

    @Test
    void invalidAliasTextIsMalformed() {
      assertRejected(MALFORMED, "aliases",
          () -> ModelRegistration.fromWire("llama", ModelTarget.WireCase.BASE, "llama", null, List.of(" chat")));
      assertRejected(MALFORMED, "aliases",
          () -> ModelRegistration.fromWire("llama", ModelTarget.WireCase.BASE, "llama", null, List.of("")));
    }

    @Test
    void invalidCanonicalIdAndTargetTextsAreMalformed() {
      assertRejected(MALFORMED, "canonical_model_id",
          () -> ModelRegistration.fromWire("", ModelTarget.WireCase.BASE, "llama", null, List.of()));
      assertRejected(MALFORMED, "target.base.base_model",
          () -> ModelRegistration.fromWire("llama", ModelTarget.WireCase.BASE, "", null, List.of()));
      assertRejected(MALFORMED, "target.lora.adapter",
          () -> ModelRegistration.fromWire("sql", ModelTarget.WireCase.LORA, "llama", " ", List.of()));
      assertRejected(MALFORMED, "target.lora.base_model",
          () -> ModelRegistration.fromWire("sql", ModelTarget.WireCase.LORA, null, "sql-lora", List.of()));
    }

    @Test
    void validRegistrationsAreAccepted() throws Exception {
      ModelRegistration base = ModelRegistration.fromWire(
          "llama", ModelTarget.WireCase.BASE, "llama", "ignored", List.of("chat"));
      assertThat(base.target()).isEqualTo(new ModelTarget.Base("llama"));
      assertThat(base.aliases()).containsExactly("chat");
      ModelRegistration lora = ModelRegistration.fromWire(
          "sql", ModelTarget.WireCase.LORA, "llama", "sql-lora", null);
      assertThat(lora.target()).isEqualTo(new ModelTarget.Lora("llama", "sql-lora"));
      assertThat(((ModelTarget.Lora) lora.target()).adapter()).isEqualTo("sql-lora");
      assertThat(lora.targetCase()).isEqualTo(ModelTarget.WireCase.LORA);
    }
  }

  @Nested
  class QuerySemanticsRules {
    @Test
    void blockSize0IsMalformed() {
      assertRejected(MALFORMED, "kv_block_size", () -> KvQuerySemantics.fromWire(0, 1));
    }

    @Test
    void vectors10_2_hashFormat0IsMalformed() {
      assertRejected(MALFORMED, "hash_format", () -> KvQuerySemantics.fromWire(64, 0));
    }

    @Test
    void vectors10_2_hashFormat99IsUnsupported() {
      assertRejected(UNSUPPORTED, "hash_format", () -> KvQuerySemantics.fromWire(64, 99));
    }

    @Test
    void vectors10_2_hashFormatMinus1IsUnsupported() {
      assertRejected(UNSUPPORTED, "hash_format", () -> KvQuerySemantics.fromWire(64, -1));
    }

    @Test
    void blockSizeIsCheckedBeforeHashFormat() {
      assertRejected(MALFORMED, "kv_block_size", () -> KvQuerySemantics.fromWire(0, 99));
    }

    @Test
    void validSemanticsAreAccepted_includingTheFullU32Range() throws Exception {
      assertThat(KvQuerySemantics.fromWire(64, 2))
          .isEqualTo(new KvQuerySemantics(64, KvQueryHashFormat.DYNAMO_EAGLE_V1));
      assertThat(KvQuerySemantics.fromWire(-1, 1).kvBlockSizeUnsigned()).isEqualTo(4_294_967_295L);
    }
  }

  @Nested
  class RoleRules {
    @Test
    void vectors10_2_role0IsMalformed() {
      assertRejected(MALFORMED, "role", () -> WorkerRole.fromWire(0));
    }

    @Test
    void vectors10_2_role99IsUnsupported() {
      assertRejected(UNSUPPORTED, "role", () -> WorkerRole.fromWire(99));
    }

    @Test
    void vectors10_2_roleMinus1IsUnsupported() {
      assertRejected(UNSUPPORTED, "role", () -> WorkerRole.fromWire(-1));
    }

    @Test
    void roleSetWithUnspecifiedIsMalformed() {
      assertRejected(MALFORMED, "pool_roles", () -> WorkerRole.fromWireSet("pool_roles", new int[] {1, 0}));
    }

    @Test
    void roleSetWithUnknownIsUnsupported() {
      assertRejected(UNSUPPORTED, "pool_roles", () -> WorkerRole.fromWireSet("pool_roles", new int[] {2, 99}));
    }

    @Test
    void roleSetWithDuplicateIsMalformed() {
      assertRejected(MALFORMED, "pool_roles", () -> WorkerRole.fromWireSet("pool_roles", new int[] {2, 1, 2}));
    }

    @Test
    void emptyRoleSetIsMalformed() {
      assertRejected(MALFORMED, "members.roles", () -> WorkerRole.fromWireSet("members.roles", new int[0]));
      assertRejected(MALFORMED, "pool_roles", () -> WorkerRole.fromWireSet("pool_roles", (int[]) null));
    }

    @Test
    void listFormBehavesLikeTheArrayForm() throws Exception {
      assertRejected(MALFORMED, "pool_roles", () -> WorkerRole.fromWireSet("pool_roles", List.of(1, 1)));
      assertRejected(UNSUPPORTED, "pool_roles", () -> WorkerRole.fromWireSet("pool_roles", List.of(6)));
      assertRejected(MALFORMED, "pool_roles", () -> WorkerRole.fromWireSet("pool_roles", List.of()));
      assertRejected(MALFORMED, "pool_roles",
          () -> WorkerRole.fromWireSet("pool_roles", java.util.Arrays.asList(1, null)));
      assertThat(WorkerRole.fromWireSet("pool_roles", List.of(2, 3))).containsExactly(WorkerRole.DECODE, WorkerRole.ENCODE);
    }

    @Test
    void validRoleSetIsAccepted() throws Exception {
      assertThat(WorkerRole.fromWireSet("pool_roles", new int[] {5, 1, 4}))
          .containsExactly(WorkerRole.PREFILL, WorkerRole.AGGREGATED, WorkerRole.LEGACY);
    }

    @Test
    void wireNumbersMatchTheProto() throws Exception {
      int[] expected = {1, 2, 3, 4, 5};
      WorkerRole[] roles = {WorkerRole.PREFILL, WorkerRole.DECODE, WorkerRole.ENCODE, WorkerRole.AGGREGATED,
        WorkerRole.LEGACY};
      for (int i = 0; i < roles.length; i++) {
        assertThat(roles[i].wireValue()).isEqualTo(expected[i]);
        assertThat(WorkerRole.fromWire(expected[i])).isEqualTo(roles[i]);
      }
    }
  }

  @Nested
  class ReadinessStateRules {
    @Test
    void unknownStateValueIsUnsupported() {
      assertRejected(UNSUPPORTED, "state", () -> ServingReadinessState.fromWire(3));
      assertRejected(UNSUPPORTED, "state", () -> ServingReadinessState.fromWire(-1));
    }

    @Test
    void stateUnknown0IsValid() throws Exception {
      assertThat(ServingReadinessState.fromWire(0)).isEqualTo(ServingReadinessState.UNKNOWN);
      assertThat(ServingReadinessState.fromWire(1)).isEqualTo(ServingReadinessState.UNAVAILABLE);
      assertThat(ServingReadinessState.fromWire(2)).isEqualTo(ServingReadinessState.READY);
      assertThat(ServingReadinessState.READY.wireValue()).isEqualTo(2);
    }
  }

  @Nested
  class IdentitySourceWireNumbers {
    @Test
    void numbersMatchTheProto() throws Exception {
      assertThat(IdentitySource.fromWire(1)).isEqualTo(IdentitySource.DEFAULT_DERIVED);
      assertThat(IdentitySource.fromWire(2)).isEqualTo(IdentitySource.EXPLICIT);
      assertThat(IdentitySource.DEFAULT_DERIVED.wireValue()).isEqualTo(1);
      assertThat(IdentitySource.EXPLICIT.wireValue()).isEqualTo(2);
      assertRejected(MALFORMED, "source", () -> IdentitySource.fromWire(0));
    }
  }
}
