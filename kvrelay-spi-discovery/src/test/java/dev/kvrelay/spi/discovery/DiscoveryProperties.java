package dev.kvrelay.spi.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Round trips (records ⇄ JSON, keys ⇄ paths) and robustness of every decoder against arbitrary input. */
class DiscoveryProperties {

  interface Call {
    Object run() throws DiscoveryDecodeException;
  }

  static void onlyDecodeException(Call call) {
    try {
      assertThat(call.run()).isNotNull();
    } catch (DiscoveryDecodeException e) {
      assertThat(e.reason()).isNotNull();
      assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.MALFORMED_ENTRY);
    } catch (RuntimeException e) {
      throw new AssertionError("unchecked exception from a decoder", e);
    }
  }

  @Test
  void recordsRoundTripThroughJson() {
    qt().withExamples(2000).forAll(DiscoveryGens.records()).checkAssert(r -> {
      String json = DiscoveryCodec.encodeToString(r);
      try {
        assertThat(DiscoveryCodec.decode(json)).isEqualTo(r);
        assertThat(DiscoveryCodec.decodeAt(r.key().kind(), r.key().path(), json.getBytes(StandardCharsets.UTF_8))).isEqualTo(r);
        assertThat(DiscoveryCodec.encodeToString(DiscoveryCodec.decode(json))).isEqualTo(json);
      } catch (DiscoveryDecodeException e) {
        throw new AssertionError(json, e);
      }
    });
  }

  @Test
  void workerMetadataRoundTrips() {
    qt().withExamples(500).forAll(DiscoveryGens.recordLists()).checkAssert(records -> {
      Set<DiscoveryKey> keys = new HashSet<>();
      List<DiscoveryRecord> unique = records.stream().filter(r -> keys.add(r.key())).toList();
      try {
        DiscoveryCodec.WorkerMetadata m = DiscoveryCodec.decodeWorkerMetadata(
            Json.parse(Json.write(DiscoveryCodec.encodeWorkerMetadata(unique))));
        assertThat(m.skipped()).isEmpty();
        assertThat(m.records()).containsExactlyInAnyOrderElementsOf(unique);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
  }

  @Test
  void keysRoundTripThroughPaths() {
    qt().withExamples(3000).forAll(DiscoveryGens.keys()).checkAssert(k -> {
      try {
        assertThat(DiscoveryKey.parse(k.kind(), k.path())).isEqualTo(k);
        assertThat(DiscoveryKey.parseStorageKey(k.storageKey())).isEqualTo(k);
      } catch (DiscoveryDecodeException e) {
        throw new AssertionError(k.storageKey(), e);
      }
    });
  }

  @Test
  void arbitraryPathsNeverThrowUnchecked() {
    Gen<String> pieces = Generate.pick(List.of("/", "namespace", "component", "endpoint", "topic", "n", "%", "%2F",
        "%C3", "0", "ff", "10000000000000000", "", " ", "é", ".", "v1/mdc/", "v1/instances/", "v1/event_sources/"));
    Gen<String> paths = rs -> {
      StringBuilder sb = new StringBuilder();
      int n = Generate.range(0, 14).generate(rs);
      for (int i = 0; i < n; i++) {
        sb.append(pieces.generate(rs));
      }
      return sb.toString();
    };
    qt().withExamples(4000).forAll(paths, Generate.enumValues(DiscoveryKind.class)).checkAssert((p, kind) -> {
      onlyDecodeException(() -> DiscoveryKey.parse(kind, p));
      onlyDecodeException(() -> DiscoveryKey.parseStorageKey(p));
    });
  }

  @Test
  void mutatedRecordJsonNeverThrowsUnchecked() {
    Gen<String> replacements = Generate.pick(List.of("", "null", "1", "-1", "1.5", "\"\"", "[]", "{}", "\"x\"",
        "18446744073709551616", "true", "{\"bits\":16}", "[[\"gpu\"]]", "\"a/b\""));
    qt().withExamples(3000).forAll(DiscoveryGens.records(), integers().between(0, 10_000), replacements)
        .checkAssert((r, at, replacement) -> {
          String json = DiscoveryCodec.encodeToString(r);
          // Replace one JSON value (the text after a ':' up to the next ',' or '}') with another.
          int colon = json.indexOf(':', at % json.length());
          String mutated = json;
          if (colon >= 0) {
            int end = colon + 1;
            while (end < json.length() && json.charAt(end) != ',' && json.charAt(end) != '}') {
              end++;
            }
            mutated = json.substring(0, colon + 1) + replacement + json.substring(end);
          }
          String finalJson = mutated;
          onlyDecodeException(() -> DiscoveryCodec.decode(finalJson));
          JsonValue wrapped;
          try {
            wrapped = Json.parse("{\"model_cards\":{\"k\":" + finalJson + "}}");
          } catch (JsonException e) {
            return; // not JSON at all: covered by decode above
          }
          onlyDecodeException(() -> DiscoveryCodec.decodeWorkerMetadata(wrapped));
        });
  }

  @Test
  void arbitraryTextNeverThrowsUnchecked() {
    qt().withExamples(3000).forAll(strings().allPossible().ofLengthBetween(0, 30)).checkAssert(s -> {
      onlyDecodeException(() -> DiscoveryCodec.decode(s));
      onlyDecodeException(() -> DiscoveryCodec.decode(s.getBytes(StandardCharsets.UTF_8)));
    });
  }

  @Test
  void prefixMatchingAgreesWithTheDottedNameReference() {
    // Reference for parts without '.': P matches ns.comp.ep iff the dotted name equals P or starts with P + "."
    // and P has at most three segments.
    Gen<String> part = Generate.pick(List.of("a", "ab", "b", "prod-a", "backend", "backend2", "gen"));
    Gen<String> prefixes = rs -> {
      int n = Generate.range(1, 4).generate(rs);
      StringBuilder sb = new StringBuilder(part.generate(rs));
      for (int i = 1; i < n; i++) {
        sb.append('.').append(part.generate(rs));
      }
      return sb.toString();
    };
    qt().withExamples(3000).forAll(prefixes, part, part, part).checkAssert((p, ns, comp, ep) -> {
      String dotted = ns + "." + comp + "." + ep;
      boolean expected = p.split("\\.").length <= 3 && (dotted.equals(p) || dotted.startsWith(p + "."));
      try {
        assertThat(DiscoveryScope.watchAll(List.of(p)).matchesEndpoint(new DynamoEndpointId(ns, comp, ep)))
            .as("%s vs %s", p, dotted).isEqualTo(expected);
      } catch (DiscoveryException e) {
        throw new AssertionError(e);
      }
    });
  }
}
