package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;

/**
 * Cross-checks the BLAKE3 use against independent references: the Debian {@code b3sum} binary on raw
 * random inputs, and BouncyCastle's {@code Blake3Digest} on identity material framed by the test.
 */
class Blake3ReferenceTest {

  private static final HexFormat HEX = HexFormat.of();

  /** Lengths around BLAKE3's 64-byte block and 1024-byte chunk boundaries, then random ones. */
  private static List<Integer> lengths() {
    List<Integer> lengths = new ArrayList<>();
    for (int boundary : new int[] {0, 64, 1024, 2048, 3072, 4096}) {
      for (int d = -1; d <= 1; d++) {
        if (boundary + d >= 0) {
          lengths.add(boundary + d);
        }
      }
    }
    lengths.add(5000);
    SplittableRandom random = new SplittableRandom(0x5EED_B1A3L);
    while (lengths.size() < 300) {
      lengths.add(random.nextInt(5001));
    }
    return lengths;
  }

  @Test
  void blake3MatchesB3sumOnRandomByteStrings(@TempDir Path dir) throws Exception {
    File b3sum = new File("/usr/bin/b3sum");
    if (!b3sum.canExecute()) {
      if ("true".equals(System.getenv("CI"))) {
        fail("b3sum (Debian package b3sum) is required in CI");
      }
      Assumptions.abort("b3sum not installed; skipping the external BLAKE3 cross-check");
    }
    SplittableRandom random = new SplittableRandom(42);
    List<Integer> lengths = lengths();
    List<byte[]> inputs = new ArrayList<>();
    List<String> command = new ArrayList<>(List.of(b3sum.getPath(), "--no-names"));
    for (int i = 0; i < lengths.size(); i++) {
      byte[] input = new byte[lengths.get(i)];
      random.nextBytes(input);
      inputs.add(input);
      Path file = dir.resolve("in-" + i);
      Files.write(file, input);
      command.add(file.toString());
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    List<String> lines = output.lines().toList();
    assertThat(lines).hasSize(inputs.size());
    for (int i = 0; i < inputs.size(); i++) {
      assertThat(HEX.formatHex(IdentityMaterial.blake3(inputs.get(i))))
          .as("input %d of length %d", i, inputs.get(i).length)
          .isEqualTo(lines.get(i).trim());
    }
  }

  @Test
  void dcIdMatchesB3sumOnDcMaterial(@TempDir Path dir) throws IOException, InterruptedException {
    Assumptions.assumeTrue(new File("/usr/bin/b3sum").canExecute() || "true".equals(System.getenv("CI")),
        "b3sum not installed");
    // Raw material built by hand: tag (unframed) ‖ LE32(len) ‖ UTF-8 name.
    Path file = dir.resolve("dc-a");
    byte[] tag = "dynamo/indexer-dc/v1".getBytes(StandardCharsets.US_ASCII);
    byte[] name = "dc-a".getBytes(StandardCharsets.UTF_8);
    byte[] material = new byte[tag.length + 4 + name.length];
    System.arraycopy(tag, 0, material, 0, tag.length);
    material[tag.length] = (byte) name.length;
    System.arraycopy(name, 0, material, tag.length + 4, name.length);
    Files.write(file, material);
    Process process = new ProcessBuilder("/usr/bin/b3sum", "--no-names", "--length", "8", file.toString()).start();
    String hex = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    // b3sum prints bytes in order; dc_id reads them little-endian.
    byte[] le = HEX.parseHex(hex);
    long expected = 0;
    for (int i = 7; i >= 0; i--) {
      expected = (expected << 8) | (le[i] & 0xFF);
    }
    assertThat(IdentityMaterial.dcId("dc-a")).isEqualTo(expected);
  }

  // ---- BouncyCastle on framed identity material -------------------------------------------------

  private static Gen<String> text() {
    return TestGens.wellFormed(0, 40);
  }

  private static Gen<String> validText() {
    return TestGens.validText(1, 20);
  }

  private static Gen<Map<String, String>> explicitMaps() {
    Gen<String> key = TestGens.wellFormed(1, 12);
    Gen<String> value = TestGens.wellFormed(1, 30);
    return lists().of(key.zip(value, Map::entry)).ofSizeBetween(1, 32).map(entries -> {
      Map<String, String> map = new LinkedHashMap<>();
      entries.forEach(e -> map.putIfAbsent(e.getKey(), e.getValue()));
      return map;
    });
  }

  @Test
  void cacheSemanticsMatchesBouncyCastleOnRandomDefaults() {
    qt().withExamples(500)
        .forAll(text(),
            integers().between(1, Integer.MAX_VALUE).mix(integers().between(Integer.MIN_VALUE, -1)),
            arbitrary().enumValues(KvQueryHashFormat.class))
        .checkAssert((artifact, block, format) -> {
          DigestIdentity actual =
              IndexerIdentity.cacheSemantics(artifact, new KvQuerySemantics(block, format), null);
          byte[] expected = ReferenceBlake3.digest16(
              ReferenceBlake3.cacheMaterial(List.of(artifact), null, Integer.toUnsignedLong(block), format.wireValue()));
          assertThat(actual.digest()).isEqualTo(expected);
          assertThat(actual.source()).isEqualTo(IdentitySource.DEFAULT_DERIVED);
        });
  }

  @Test
  void cacheSemanticsMatchesBouncyCastleOnRandomExplicitMaps() {
    qt().withExamples(300)
        .forAll(explicitMaps(), integers().between(1, 1 << 20), arbitrary().enumValues(KvQueryHashFormat.class))
        .checkAssert((map, block, format) -> {
          DigestIdentity actual = IndexerIdentity.cacheSemantics(
              "ignored/artifact", new KvQuerySemantics(block, format), ExplicitIdentityMap.of(map));
          byte[] expected = ReferenceBlake3.digest16(
              ReferenceBlake3.cacheMaterial(List.of(), map, block, format.wireValue()));
          assertThat(actual.digest()).isEqualTo(expected);
          assertThat(actual.source()).isEqualTo(IdentitySource.EXPLICIT);
        });
  }

  @Test
  void routingScopeMatchesBouncyCastleOnRandomEndpointsAndMaps() {
    qt().withExamples(300)
        .forAll(validText(), validText(), validText(), explicitMaps())
        .checkAssert((ns, component, endpoint, map) -> {
          DynamoEndpointId id = new DynamoEndpointId(ns, component, endpoint);
          assertThat(IndexerIdentity.routingScope(id, null).digest())
              .isEqualTo(ReferenceBlake3.digest16(
                  ReferenceBlake3.routingMaterial(List.of(ns, component, endpoint), null)));
          assertThat(IndexerIdentity.routingScope(id, ExplicitIdentityMap.of(map)).digest())
              .isEqualTo(ReferenceBlake3.digest16(ReferenceBlake3.routingMaterial(List.of(), map)));
        });
  }

  @Test
  void dcIdMatchesBouncyCastleOnRandomNames() {
    qt().withExamples(500).forAll(validText()).checkAssert(name -> {
      try {
        assertThat(DcId.derive(name).value()).isEqualTo(ReferenceBlake3.dcId(name));
      } catch (WireValidationException e) {
        throw new AssertionError("valid name rejected: " + name, e);
      }
    });
  }
}
