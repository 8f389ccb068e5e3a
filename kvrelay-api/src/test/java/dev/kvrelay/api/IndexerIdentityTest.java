package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;

/** producer.md §1.3 card inputs: ZeroBlockSize, u32 range, hash format selection. */
class IndexerIdentityTest {

  private static final DynamoEndpointId EP = new DynamoEndpointId("prod", "router", "generate");

  private static WireValidationException rejected(long blockSize) {
    WireValidationException e = catchThrowableOfType(WireValidationException.class,
        () -> IndexerIdentity.fromCard("meta/llama", "llama", blockSize, false, EP, null, null));
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(WireValidationException.Kind.MALFORMED);
    assertThat(e.field()).isEqualTo("kv_cache_block_size");
    return e;
  }

  @Test
  void zeroBlockSizeYieldsNoDomain() {
    assertThat(rejected(0).detail()).isEqualTo("KV query block size must be nonzero");
    assertThatThrownBy(() -> new KvQuerySemantics(0, KvQueryHashFormat.DYNAMO_STANDARD_V1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void blockSizeMustFitU32() throws Exception {
    rejected(-1);
    rejected(1L << 32);
    DigestIdentity max = IndexerIdentity.fromCard("m", "m", 0xFFFF_FFFFL, false, EP, null, null).cacheSemantics();
    assertThat(max.digest()).isEqualTo(
        ReferenceBlake3.digest16(ReferenceBlake3.cacheMaterial(List.of("m"), null, 0xFFFF_FFFFL, 1)));
  }

  @Test
  void enableEagleSelectsHashFormat2() throws Exception {
    DigestIdentity eagle = IndexerIdentity.fromCard("m", "m", 16, true, EP, null, null).cacheSemantics();
    assertThat(eagle.digest()).isEqualTo(ReferenceBlake3.digest16(ReferenceBlake3.cacheMaterial(List.of("m"), null, 16, 2)));
  }

  /**
   * Decision pinned: runtime-inputs.md §7.3 "Decision needed — what selects EAGLE": follow
   * {@code runtime_config.enable_eagle} alone, whatever the worker type (a prefill worker is standard
   * because it does not set enable_eagle). The card derivation takes no worker type; the flag alone flips
   * the hash format (wire and identity version 2 vs 1) and with it the cache-semantics digest (vectors.md §7).
   */
  @Test
  void decisionPinned_enableEagleAloneSelectsTheHashFormat() throws Exception {
    assertThat(KvQueryHashFormat.fromEnableEagle(true)).isEqualTo(KvQueryHashFormat.DYNAMO_EAGLE_V1);
    assertThat(KvQueryHashFormat.fromEnableEagle(false)).isEqualTo(KvQueryHashFormat.DYNAMO_STANDARD_V1);
    assertThat(KvQueryHashFormat.DYNAMO_EAGLE_V1.wireValue()).isEqualTo(2);
    assertThat(KvQueryHashFormat.DYNAMO_STANDARD_V1.wireValue()).isEqualTo(1);
    assertThat(IndexerIdentity.fromCard("meta/llama", "x", 512, true, EP, null, null).cacheSemantics().hex())
        .isEqualTo("deae03cf69f6e4a47cbec26ceba95354");
    assertThat(IndexerIdentity.fromCard("meta/llama", "x", 512, false, EP, null, null).cacheSemantics().hex())
        .isEqualTo("7d31eb9019357572470605f4a8be687e");
  }

  @Test
  void malformedArtifactTextIsRejected() {
    WireValidationException e = catchThrowableOfType(WireValidationException.class,
        () -> IndexerIdentity.fromCard(null, "bad\uDC00", 16, false, EP, null, null));
    assertThat(e).isNotNull();
    assertThat(e.field()).isEqualTo("display_name");
    assertThat(catchThrowableOfType(WireValidationException.class,
        () -> IndexerIdentity.fromCard(null, null, 16, false, EP, null, null))).isNotNull();
  }
}
