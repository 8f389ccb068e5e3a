package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** producer.md §1.3: explicit identity map constraints and hashing order. */
class ExplicitIdentityMapTest {

  private static final String FIELD = "indexer_identity.semantics";

  private static WireValidationException rejected(List<? extends Map.Entry<String, String>> entries) {
    WireValidationException e = catchThrowableOfType(
        WireValidationException.class, () -> ExplicitIdentityMap.fromEntries(FIELD, entries));
    assertThat(e).isNotNull();
    assertThat(e.kind()).isEqualTo(WireValidationException.Kind.MALFORMED);
    assertThat(e.field()).startsWith(FIELD);
    return e;
  }

  private static List<Map.Entry<String, String>> entries(int n) {
    List<Map.Entry<String, String>> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(Map.entry("k" + i, "v" + i));
    }
    return list;
  }

  @Test
  void entryCountMustBe1To32() throws Exception {
    rejected(List.of());
    assertThat(ExplicitIdentityMap.fromEntries(FIELD, entries(1)).size()).isEqualTo(1);
    assertThat(ExplicitIdentityMap.fromEntries(FIELD, entries(32)).size()).isEqualTo(32);
    rejected(entries(33));
    assertThat(catchThrowableOfType(WireValidationException.class, () -> ExplicitIdentityMap.fromEntries(FIELD, null)))
        .isNotNull();
  }

  @Test
  void keyMustBeNonEmptyAndAtMost128Utf8Bytes() throws Exception {
    rejected(List.of(Map.entry("", "v")));
    String key128 = "\u00E9".repeat(64); // 2 UTF-8 bytes each, 64 UTF-16 chars
    assertThat(ExplicitIdentityMap.fromEntries(FIELD, List.of(Map.entry(key128, "v"))).size()).isEqualTo(1);
    rejected(List.of(Map.entry(key128 + "x", "v")));
    rejected(List.of(Map.entry("\uD83D\uDE00".repeat(32) + "x", "v"))); // 129 bytes, 65 chars
  }

  @Test
  void valueMustBeNonEmptyAndAtMost1024Utf8Bytes() throws Exception {
    rejected(List.of(Map.entry("k", "")));
    assertThat(ExplicitIdentityMap.fromEntries(FIELD, List.of(Map.entry("k", "x".repeat(1024)))).size()).isEqualTo(1);
    rejected(List.of(Map.entry("k", "x".repeat(1025))));
    rejected(List.of(Map.entry("k", "\u20AC".repeat(341) + "xx"))); // 1023 + 2 = 1025 bytes
  }

  @Test
  void duplicateKeysAreRejected() {
    assertThat(rejected(List.of(Map.entry("a", "1"), Map.entry("b", "2"), Map.entry("a", "1"))).detail())
        .contains("duplicate explicit identity key");
  }

  @Test
  void missingKeysOrValuesAndUnpairedSurrogatesAreMalformedNotNpe() {
    rejected(new ArrayList<>(List.of(new SimpleEntry<>(null, "v"))));
    rejected(new ArrayList<>(List.of(new SimpleEntry<>("k", null))));
    List<Map.Entry<String, String>> withNull = new ArrayList<>();
    withNull.add(null);
    rejected(withNull);
    rejected(List.of(Map.entry("k\uDC00", "v")));
    rejected(List.of(Map.entry("k", "\uD800")));
  }

  @Test
  void trustedFactoryThrowsIllegalArgument() {
    assertThatThrownBy(() -> ExplicitIdentityMap.of(Map.of())).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ExplicitIdentityMap.of(Map.of("k", ""))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void entriesIterateInUtf8ByteOrderNotUtf16Order() throws Exception {
    // UTF-8: U+FFFD (EF BF BD) < U+1F600 (F0 9F 98 80); UTF-16 orders them the other way round.
    String bmpHigh = "\uFFFD";
    String astral = "\uD83D\uDE00";
    Map<String, String> input = new LinkedHashMap<>();
    input.put(astral, "1");
    input.put(bmpHigh, "2");
    input.put("Z", "3");
    ExplicitIdentityMap map = ExplicitIdentityMap.fromMap(FIELD, input);
    assertThat(new ArrayList<>(map.entries().keySet())).containsExactly("Z", bmpHigh, astral);
    KvQuerySemantics q = new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1);
    assertThat(HexFormat.of().formatHex(IndexerIdentity.cacheSemantics("m", q, map).digest()))
        .isEqualTo(HexFormat.of().formatHex(
            ReferenceBlake3.digest16(ReferenceBlake3.cacheMaterial(List.of(), input, 16, 1))));
  }

  @Test
  void equalityIgnoresInputOrder() throws Exception {
    assertThat(ExplicitIdentityMap.fromEntries(FIELD, List.of(Map.entry("a", "1"), Map.entry("b", "2"))))
        .isEqualTo(ExplicitIdentityMap.fromEntries(FIELD, List.of(Map.entry("b", "2"), Map.entry("a", "1"))));
  }
}
