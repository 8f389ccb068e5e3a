package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The upstream property tests of vectors.md §7 (last paragraph), plus randomized forms of them. */
class UpstreamIdentityPropertiesTest {

  private static final KvQuerySemantics Q512 = new KvQuerySemantics(512, KvQueryHashFormat.DYNAMO_STANDARD_V1);

  @Test
  void defaultAndExplicitMaterialNeverAlias_evenWithTheSameText() {
    // Same text "meta/llama" as the default and as an explicit entry.
    DigestIdentity byDefault = IndexerIdentity.cacheSemantics("meta/llama", Q512, null);
    DigestIdentity explicit =
        IndexerIdentity.cacheSemantics("meta/llama", Q512, ExplicitIdentityMap.of(Map.of("meta/llama", "meta/llama")));
    assertThat(explicit.digest()).isNotEqualTo(byDefault.digest());
    assertThat(explicit).isNotEqualTo(byDefault);

    DigestIdentity routingDefault = IndexerIdentity.routingScope(List.of("authority", "shared"), null);
    DigestIdentity routingExplicit =
        IndexerIdentity.routingScope(List.of("authority", "shared"), ExplicitIdentityMap.of(Map.of("authority", "shared")));
    assertThat(routingExplicit.digest()).isNotEqualTo(routingDefault.digest());
  }

  @Test
  void defaultAndExplicitNeverAlias_randomized() {
    qt().withExamples(300)
        .forAll(TestGens.wellFormed(1, 10), TestGens.wellFormed(1, 10))
        .checkAssert((k, v) -> {
          ExplicitIdentityMap map = ExplicitIdentityMap.of(Map.of(k, v));
          assertThat(IndexerIdentity.routingScope(List.of(k, v), map).digest())
              .isNotEqualTo(IndexerIdentity.routingScope(List.of(k, v), null).digest());
          assertThat(IndexerIdentity.cacheSemantics(List.of(k, v), Q512, map).digest())
              .isNotEqualTo(IndexerIdentity.cacheSemantics(List.of(k, v), Q512, null).digest());
        });
  }

  @Test
  void lengthFramingDistinguishes_ab_c_from_a_bc() {
    assertThat(IndexerIdentity.routingScope(List.of("ab", "c"), null).digest())
        .isNotEqualTo(IndexerIdentity.routingScope(List.of("a", "bc"), null).digest());
    assertThat(IndexerIdentity.cacheSemantics(List.of("ab", "c"), Q512, null).digest())
        .isNotEqualTo(IndexerIdentity.cacheSemantics(List.of("a", "bc"), Q512, null).digest());
    // Same for endpoint triples whose joined text is equal.
    assertThat(IndexerIdentity.routingScope(new DynamoEndpointId("ab", "c", "d"), null))
        .isNotEqualTo(IndexerIdentity.routingScope(new DynamoEndpointId("a", "bc", "d"), null));
    assertThat(IndexerIdentity.cacheSemantics(List.of(), Q512, ExplicitIdentityMap.of(Map.of("ab", "c"))))
        .isNotEqualTo(IndexerIdentity.cacheSemantics(List.of(), Q512, ExplicitIdentityMap.of(Map.of("a", "bc"))));
  }

  @Test
  void identicalExplicitSpecsOnDifferentEndpoints_sameDomain_differentPoolIdsAcrossDcs() throws Exception {
    ExplicitIdentityMap semantics = ExplicitIdentityMap.of(Map.of("mapping", "tp2", "weights", "revision-a"));
    ExplicitIdentityMap routing = ExplicitIdentityMap.of(Map.of("authority", "shared"));
    IndexerDomainId first = IndexerIdentity.fromCard(
        "meta/llama", "llama", 512, false, new DynamoEndpointId("prod", "router", "generate"), semantics, routing);
    IndexerDomainId second = IndexerIdentity.fromCard(
        "other/artifact", "other", 512, false, new DynamoEndpointId("staging", "backend", "serve"), semantics, routing);
    assertThat(second).isEqualTo(first);
    assertThat(first.reliesOnDefaults()).isFalse();

    KvPoolId inA = new KvPoolId(first, DcId.derive("dc-a"));
    KvPoolId inB = new KvPoolId(second, DcId.derive("dc-b"));
    assertThat(inA).isNotEqualTo(inB);
    assertThat(inA.indexerDomain()).isEqualTo(inB.indexerDomain());
    assertThat(new KvPoolId(second, DcId.derive("dc-a"))).isEqualTo(inA);
  }

  @Test
  void mandatorySemanticsCannotBeReplacedByExplicitMaterial() {
    ExplicitIdentityMap explicit =
        ExplicitIdentityMap.of(Map.of("kv_block_size", "512", "hash_format", "1", "authority", "shared"));
    DigestIdentity base = IndexerIdentity.cacheSemantics("a", Q512, explicit);
    DigestIdentity otherBlock =
        IndexerIdentity.cacheSemantics("a", new KvQuerySemantics(64, KvQueryHashFormat.DYNAMO_STANDARD_V1), explicit);
    DigestIdentity otherFormat =
        IndexerIdentity.cacheSemantics("a", new KvQuerySemantics(512, KvQueryHashFormat.DYNAMO_EAGLE_V1), explicit);
    assertThat(otherBlock.digest()).isNotEqualTo(base.digest());
    assertThat(otherFormat.digest()).isNotEqualTo(base.digest());
    assertThat(otherBlock.digest()).isNotEqualTo(otherFormat.digest());
  }

  @Test
  void mandatorySemanticsAlwaysMatter_randomized() {
    qt().withExamples(300)
        .forAll(integers().between(1, 1 << 16), integers().between(1, 1 << 16),
            arbitrary().enumValues(KvQueryHashFormat.class), arbitrary().enumValues(KvQueryHashFormat.class))
        .assuming((b1, b2, f1, f2) -> !b1.equals(b2) || f1 != f2)
        .checkAssert((b1, b2, f1, f2) -> {
          ExplicitIdentityMap explicit = ExplicitIdentityMap.of(Map.of("authority", "shared"));
          assertThat(IndexerIdentity.cacheSemantics("m", new KvQuerySemantics(b1, f1), explicit))
              .isNotEqualTo(IndexerIdentity.cacheSemantics("m", new KvQuerySemantics(b2, f2), explicit));
        });
  }

  @Test
  void explicitMapsReplaceDefaults_theArtifactAndEndpointNoLongerMatter() {
    ExplicitIdentityMap map = ExplicitIdentityMap.of(Map.of("authority", "shared"));
    assertThat(IndexerIdentity.cacheSemantics("x", Q512, map)).isEqualTo(IndexerIdentity.cacheSemantics("y", Q512, map));
    assertThat(IndexerIdentity.routingScope(new DynamoEndpointId("a", "b", "c"), map))
        .isEqualTo(IndexerIdentity.routingScope(new DynamoEndpointId("d", "e", "f"), map));
  }

  @Test
  void sourcePathFallsBackToDisplayName() throws Exception {
    DynamoEndpointId ep = new DynamoEndpointId("prod", "router", "generate");
    assertThat(IndexerIdentity.fromCard(null, "meta/llama", 512, false, ep, null, null))
        .isEqualTo(IndexerIdentity.fromCard("meta/llama", "Served Name", 512, false, ep, null, null));
    assertThat(IndexerIdentity.modelArtifact(null, "d")).isEqualTo("d");
    assertThat(IndexerIdentity.modelArtifact("s", "d")).isEqualTo("s");
  }

  @Test
  void reliesOnDefaultsIfEitherSourceIsDefaultDerived() throws Exception {
    DynamoEndpointId ep = new DynamoEndpointId("p", "r", "g");
    ExplicitIdentityMap map = ExplicitIdentityMap.of(Map.of("k", "v"));
    assertThat(IndexerIdentity.fromCard("m", "m", 1, false, ep, null, null).reliesOnDefaults()).isTrue();
    assertThat(IndexerIdentity.fromCard("m", "m", 1, false, ep, map, null).reliesOnDefaults()).isTrue();
    assertThat(IndexerIdentity.fromCard("m", "m", 1, false, ep, null, map).reliesOnDefaults()).isTrue();
    assertThat(IndexerIdentity.fromCard("m", "m", 1, false, ep, map, map).reliesOnDefaults()).isFalse();
  }
}
