package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** vectors.md §6 (dc_id) and §7 (identity digests), each vector by name. */
class IdentityVectorsTest {

  private static final DynamoEndpointId PROD_ROUTER_GENERATE = new DynamoEndpointId("prod", "router", "generate");
  private static final KvQuerySemantics BLOCK_512_STANDARD =
      new KvQuerySemantics(512, KvQueryHashFormat.DYNAMO_STANDARD_V1);

  @ParameterizedTest(name = "vectors.md §6 C dc_id ''{0}'' -> {1}")
  @CsvSource({
    "dc-a,      04f110c98b1bfc48, 356084303347317832",
    "dc-b,      a80b8cea06f82376, 12108926959882871670",
    "test-dc,   49861458b11c53ec, 5297944382809068524",
    "us-west,   dccaa7bfa0f30f77, 15909713075120574327",
    "us-east-1, 455bfcc6324f64a0, 4997866139675485344",
  })
  void dcIdVector(String name, String hex, String unsignedDecimal) throws Exception {
    DcId id = DcId.derive(name);
    assertThat(id.hex()).isEqualTo(hex);
    assertThat(id.toString()).isEqualTo(hex);
    assertThat(Long.toUnsignedString(id.value())).isEqualTo(unsignedDecimal);
    assertThat(id).isEqualTo(DcId.of(Long.parseUnsignedLong(unsignedDecimal)));
  }

  @Test
  void dcIdDisplayVector_dcIdNew1_is_0000000000000001() {
    assertThat(DcId.of(1).toString()).isEqualTo("0000000000000001");
    assertThat(DcId.of(-1L).toString()).isEqualTo("ffffffffffffffff");
    assertThat(DcId.of(0x00ab_0000_0000_0000L).toString()).isEqualTo("00ab000000000000");
  }

  @Test
  void U_cacheSemanticsDefault_relayDerivationHasFrozenGoldenVectors() throws Exception {
    IndexerDomainId domain = IndexerIdentity.fromCard(
        "meta/llama", "Llama", 512, false, PROD_ROUTER_GENERATE, null, null);
    assertThat(domain.cacheSemantics().hex()).isEqualTo("7d31eb9019357572470605f4a8be687e");
    assertThat(domain.cacheSemantics().source()).isEqualTo(IdentitySource.DEFAULT_DERIVED);
  }

  @Test
  void U_routingScopeDefault_relayDerivationHasFrozenGoldenVectors() throws Exception {
    DynamoEndpointId endpoint = DynamoEndpointId.parse("prod/router/generate");
    IndexerDomainId domain = IndexerIdentity.fromCard(null, "meta/llama", 512, false, endpoint, null, null);
    assertThat(domain.routingScope().hex()).isEqualTo("18270d3ba03effaec8d167ba02c7752d");
    assertThat(domain.routingScope().source()).isEqualTo(IdentitySource.DEFAULT_DERIVED);
    assertThat(domain.toString())
        .isEqualTo("7d31eb9019357572470605f4a8be687e:18270d3ba03effaec8d167ba02c7752d");
  }

  @Test
  void C_cacheMetaLlama512Eagle() throws Exception {
    IndexerDomainId domain = IndexerIdentity.fromCard("meta/llama", "x", 512, true, PROD_ROUTER_GENERATE, null, null);
    assertThat(domain.cacheSemantics().hex()).isEqualTo("deae03cf69f6e4a47cbec26ceba95354");
  }

  @Test
  void C_cacheMetaLlama64Standard() {
    DigestIdentity cache = IndexerIdentity.cacheSemantics(
        "meta/llama", new KvQuerySemantics(64, KvQueryHashFormat.DYNAMO_STANDARD_V1), null);
    assertThat(cache.hex()).isEqualTo("e7b20757355a7f4395af8e9d432d2e1c");
  }

  @Test
  void C_routingProdBackendGenerate() {
    DigestIdentity routing =
        IndexerIdentity.routingScope(new DynamoEndpointId("prod", "backend", "generate"), null);
    assertThat(routing.hex()).isEqualTo("c8f1fa2be6aeee2120fe20f02ca940e6");
    assertThat(routing.source()).isEqualTo(IdentitySource.DEFAULT_DERIVED);
  }

  @Test
  void C_cacheExplicitAuthorityShared512Standard() {
    DigestIdentity cache = IndexerIdentity.cacheSemantics(
        "meta/llama", BLOCK_512_STANDARD, ExplicitIdentityMap.of(Map.of("authority", "shared")));
    assertThat(cache.hex()).isEqualTo("7fa9d8c0ccc742baf1482cc003a26faa");
    assertThat(cache.source()).isEqualTo(IdentitySource.EXPLICIT);
  }

  @Test
  void C_routingExplicitAuthorityShared() {
    DigestIdentity routing = IndexerIdentity.routingScope(
        PROD_ROUTER_GENERATE, ExplicitIdentityMap.of(Map.of("authority", "shared")));
    assertThat(routing.hex()).isEqualTo("bb0a749fe11ddde6380ff04c6d091c4b");
    assertThat(routing.source()).isEqualTo(IdentitySource.EXPLICIT);
  }

  @Test
  void C_cacheExplicitMappingTp2WeightsRevisionA_anyInputOrder() throws Exception {
    Map<String, String> forward = new LinkedHashMap<>();
    forward.put("mapping", "tp2");
    forward.put("weights", "revision-a");
    Map<String, String> reverse = new LinkedHashMap<>();
    reverse.put("weights", "revision-a");
    reverse.put("mapping", "tp2");
    for (Map<String, String> input : List.of(forward, reverse)) {
      ExplicitIdentityMap map = ExplicitIdentityMap.fromEntries(
          "indexer_identity.semantics", List.copyOf(input.entrySet()));
      DigestIdentity cache = IndexerIdentity.cacheSemantics("meta/llama", BLOCK_512_STANDARD, map);
      assertThat(cache.hex()).as("input order %s", input.keySet()).isEqualTo("a02dfb3f65eca4e06e837a96902938fd");
    }
  }

  @Test
  void referenceImplementationAlsoReproducesTheUpstreamVectors() {
    // Guards the independent reference used by the randomized cross-checks.
    assertThat(java.util.HexFormat.of().formatHex(ReferenceBlake3.digest16(
            ReferenceBlake3.cacheMaterial(List.of("meta/llama"), null, 512, 1))))
        .isEqualTo("7d31eb9019357572470605f4a8be687e");
    assertThat(java.util.HexFormat.of().formatHex(ReferenceBlake3.digest16(
            ReferenceBlake3.routingMaterial(List.of("prod", "router", "generate"), null))))
        .isEqualTo("18270d3ba03effaec8d167ba02c7752d");
    assertThat(Long.toHexString(ReferenceBlake3.dcId("dc-a"))).isEqualTo("4f110c98b1bfc48");
  }
}
