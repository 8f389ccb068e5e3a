package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

import java.util.AbstractMap.SimpleEntry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Every {@code fromWire}/{@code validate}/{@code parse}/{@code derive} entry point for untrusted values
 * either returns a value or throws {@link WireValidationException}: never anything unchecked.
 */
class UntrustedInputProperties {

  interface Entry {
    Object call() throws WireValidationException;
  }

  /** Fails if {@code entry} throws anything but a WireValidationException with a kind and field. */
  static void onlyChecked(Entry entry) {
    try {
      assertThat(entry.call()).isNotNull();
    } catch (WireValidationException e) {
      assertThat(e.kind()).isNotNull();
      assertThat(e.field()).isNotNull();
    } catch (RuntimeException e) {
      throw new AssertionError("unchecked exception from an untrusted-input entry point", e);
    }
  }

  static Gen<String> nullableStrings() {
    Gen<String> any = strings().allPossible().ofLengthBetween(0, 12);
    Gen<String> plausible = arbitrary().pick(List.of("prefill", "decode|prefill", " a", "a ", "a/b/c", "a//c",
        "04f110c98b1bfc48", "7d31eb9019357572470605f4a8be687e", "\uD800", "\u00A0x", "x"));
    return Generate.constant((String) null).mix(any, 70).mix(plausible, 40);
  }

  static Gen<Integer> wireInts() {
    return integers().between(-2, 6).mix(integers().all(), 30);
  }

  static Gen<Long> wireLongs() {
    return longs().between(-2, 40).mix(longs().all(), 30).mix(longs().between(1L << 23, 1L << 26), 20);
  }

  static Gen<byte[]> nullableBytes() {
    Gen<byte[]> sized = integers().between(0, 20).map(n -> new byte[n]);
    return Generate.constant((byte[]) null).mix(sized, 80);
  }

  static Gen<DigestIdentity.Wire> digestWires() {
    return Generate.constant((DigestIdentity.Wire) null)
        .mix(nullableBytes().zip(wireInts(), DigestIdentity.Wire::new), 85);
  }

  static Gen<KvPoolId.Wire> poolWires() {
    Gen<IndexerDomainId.Wire> domains = Generate.constant((IndexerDomainId.Wire) null)
        .mix(digestWires().zip(digestWires(), IndexerDomainId.Wire::new), 85);
    return Generate.constant((KvPoolId.Wire) null)
        .mix(wireInts().zip(domains, wireLongs(), KvPoolId.Wire::new), 85);
  }

  static Gen<CkfFormat.Wire> formatWires() {
    Gen<Integer> fixed = integers().between(0, 2).mix(arbitrary().pick(List.of(4, 16, -1)), 60);
    Gen<CkfFormat.Wire> present = fixed.zip(wireLongs(), fixed, fixed,
        (v, b, fp, s) -> new CkfFormat.Wire(v, 99L, b, fp == 2 ? 16 : fp, s == 2 ? 4 : s));
    return Generate.constant((CkfFormat.Wire) null).mix(present, 85);
  }

  @Test
  void producerKeyValidationNeverThrowsUnchecked() {
    qt().withExamples(3000).forAll(poolWires(), wireLongs(), formatWires()).checkAssert((pool, gen, format) ->
        onlyChecked(() -> ProducerIdentity.fromWire(new ProducerIdentity.Wire(pool, 5, gen, format))));
  }

  @Test
  void scalarAndEnumDecodersNeverThrowUnchecked() {
    qt().withExamples(2000).forAll(wireInts(), wireInts(), nullableBytes()).checkAssert((a, b, bytes) -> {
      onlyChecked(() -> IdentitySource.fromWire(a));
      onlyChecked(() -> KvQueryHashFormat.fromWire(a));
      onlyChecked(() -> WorkerRole.fromWire(a));
      onlyChecked(() -> ServingReadinessState.fromWire(a));
      onlyChecked(() -> KvQuerySemantics.fromWire(a, b));
      onlyChecked(() -> DigestIdentity.fromWire(bytes, a));
      onlyChecked(() -> WorkerRole.fromWireSet("pool_roles", bytes == null ? null : new int[] {a, b}));
    });
  }

  @Test
  void textEntryPointsNeverThrowUnchecked() {
    qt().withExamples(2000).forAll(nullableStrings(), nullableStrings(), nullableStrings())
        .checkAssert((x, y, z) -> {
          onlyChecked(() -> DcId.derive(x));
          onlyChecked(() -> DcId.parseHex(x));
          onlyChecked(() -> DigestIdentity.parseHex(y, IdentitySource.EXPLICIT));
          onlyChecked(() -> DynamoEndpointId.parse(x));
          onlyChecked(() -> DynamoEndpointId.fromWire(x, y, z));
          onlyChecked(() -> WorkerRole.parseWorkerType(x));
        });
  }

  @Test
  void registrationAndCardEntryPointsNeverThrowUnchecked() {
    Gen<ModelTarget.WireCase> cases =
        Generate.constant((ModelTarget.WireCase) null).mix(arbitrary().enumValues(ModelTarget.WireCase.class), 80);
    Gen<List<String>> aliases = Generate.constant((List<String>) null)
        .mix(lists().of(nullableStrings()).ofSizeBetween(0, 4), 85);
    qt().withExamples(2000).forAll(nullableStrings(), cases, nullableStrings(), aliases)
        .checkAssert((id, targetCase, text, aliasList) -> {
          onlyChecked(() -> ModelRegistration.fromWire(id, targetCase, text, id, aliasList));
          onlyChecked(() -> ExplicitIdentityMap.fromEntries("indexer_identity.semantics",
              aliasList == null ? null : aliasList.stream().map(a -> new SimpleEntry<>(a, text)).toList()));
          onlyChecked(() -> IndexerIdentity.fromCard(
              text, id, id == null ? 0 : id.length() - 2L, false, new DynamoEndpointId("n", "c", "e"), null, null));
        });
  }

  @Test
  void explicitMapFromAMapWithNullsIsMalformed() {
    Map<String, String> withNull = new java.util.HashMap<>();
    withNull.put("k", null);
    onlyChecked(() -> ExplicitIdentityMap.fromMap("indexer_identity.routing_scope", withNull));
    onlyChecked(() -> ExplicitIdentityMap.fromMap("indexer_identity.routing_scope", null));
  }
}
