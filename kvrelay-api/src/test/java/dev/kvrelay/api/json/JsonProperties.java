package dev.kvrelay.api.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Fuzzing and round trips: no input makes the reader throw anything but {@link JsonException}, and
 * {@code parse(write(v))} returns {@code v}.
 */
class JsonProperties {

  /** Well-formed strings: ASCII, Latin, BMP (no surrogates) and astral code points, and JSON specials. */
  static Gen<String> texts() {
    Gen<Integer> codePoints = Generate.frequency(
        Pair.of(6, Generate.range(0x20, 0x7E)),
        Pair.of(2, Generate.pick(List.of((int) '"', (int) '\\', (int) '/', 0, 0x1F, (int) '\n', 0x7F, 0x2028))),
        Pair.of(1, Generate.range(0x80, 0xD7FF)),
        Pair.of(1, Generate.range(0xE000, 0xFFFF)),
        Pair.of(1, Generate.range(0x10000, 0x10FFFF)));
    Gen<Integer> lengths = Generate.range(0, 12);
    return rs -> {
      int n = lengths.generate(rs);
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < n; i++) {
        sb.appendCodePoint(codePoints.generate(rs));
      }
      return sb.toString();
    };
  }

  static Gen<JsonValue> numbers() {
    Gen<JsonValue> integersGen = longs().all().map(l -> (JsonValue) JsonNumber.of(l));
    Gen<JsonValue> unsigned = longs().all().map(l -> (JsonValue) JsonNumber.ofUnsigned(l));
    Gen<JsonValue> doubles = Generate.range(-1_000_000, 1_000_000)
        .zip(Generate.range(-20, 20), (m, e) -> (JsonValue) new JsonNumber(m + ".5e" + e));
    return Generate.oneOf(integersGen, unsigned, doubles);
  }

  static Gen<JsonValue> values(int depth) {
    Gen<JsonValue> scalar = Generate.frequency(
        Pair.of(3, texts().map(s -> (JsonValue) new JsonString(s))),
        Pair.of(3, numbers()),
        Pair.of(1, Generate.booleans().map(b -> (JsonValue) JsonBoolean.of(b))),
        Pair.of(1, Generate.constant((JsonValue) JsonNull.INSTANCE)));
    if (depth == 0) {
      return scalar;
    }
    Gen<JsonValue> child = values(depth - 1);
    Gen<Integer> sizes = Generate.range(0, 4);
    Gen<String> keys = texts();
    Gen<JsonValue> array = rs -> {
      int n = sizes.generate(rs);
      List<JsonValue> elements = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        elements.add(child.generate(rs));
      }
      return new JsonArray(elements);
    };
    Gen<JsonValue> object = rs -> {
      int n = sizes.generate(rs);
      Map<String, JsonValue> members = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        members.put(keys.generate(rs), child.generate(rs));
      }
      return new JsonObject(members);
    };
    return Generate.frequency(Pair.of(2, scalar), Pair.of(1, array), Pair.of(1, object));
  }

  /** Fails unless {@code parse} returns a value or throws a JsonException with a reason and a sane offset. */
  static void onlyJsonException(String text) {
    try {
      assertThat(Json.parse(text)).isNotNull();
    } catch (JsonException e) {
      assertThat(e.reason()).isNotNull();
      assertThat(e.offset()).isBetween(0L, (long) text.length());
    } catch (RuntimeException | StackOverflowError e) {
      throw new AssertionError("unchecked failure parsing " + text, e);
    }
  }

  @Test
  void writeThenParseIsIdentity() {
    qt().withExamples(3000).forAll(values(4)).checkAssert(v -> {
      String text = Json.write(v);
      try {
        assertThat(Json.parse(text)).isEqualTo(v);
        assertThat(Json.write(Json.parse(text))).isEqualTo(text);
        assertThat(Json.parse(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(v);
      } catch (JsonException e) {
        throw new AssertionError(text, e);
      }
    });
  }

  @Test
  void arbitraryTextNeverThrowsUnchecked() {
    qt().withExamples(5000).forAll(strings().allPossible().ofLengthBetween(0, 40)).checkAssert(JsonProperties::onlyJsonException);
  }

  @Test
  void jsonishTextNeverThrowsUnchecked() {
    Gen<String> alphabet = Generate.pick(List.of("{", "}", "[", "]", ":", ",", "\"", "\\", "u", "0", "1", "-", ".",
        "e", "+", "true", "false", "null", " ", "\"a\"", "\\uD800", "\\uDC00", "\uD800", "\n", "9999999999999999999999"));
    Gen<String> docs = rs -> {
      int n = Generate.range(0, 30).generate(rs);
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < n; i++) {
        sb.append(alphabet.generate(rs));
      }
      return sb.toString();
    };
    qt().withExamples(5000).forAll(docs).checkAssert(JsonProperties::onlyJsonException);
  }

  @Test
  void mutatedValidDocumentsNeverThrowUnchecked() {
    Gen<Character> replacement = Generate.pick(List.of('{', '}', '[', ']', '"', '\\', ',', ':', 'x', '0', '-', ' ', '\u0001'));
    qt().withExamples(3000)
        .forAll(values(3), integers().between(0, 1000), replacement, Generate.range(0, 2))
        .checkAssert((v, at, c, op) -> {
          StringBuilder sb = new StringBuilder(Json.write(v));
          int i = sb.length() == 0 ? 0 : at % sb.length();
          if (op == 0 && sb.length() > 0) {
            sb.deleteCharAt(i);
          } else if (op == 1) {
            sb.insert(i, c);
          } else {
            sb.setLength(i);
          }
          onlyJsonException(sb.toString());
        });
  }

  @Test
  void arbitraryBytesNeverThrowUnchecked() {
    Gen<byte[]> bytes = Generate.byteArrays(Generate.range(0, 40), Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0));
    qt().withExamples(5000).forAll(bytes).checkAssert(b -> {
      try {
        assertThat(Json.parse(b)).isNotNull();
      } catch (JsonException e) {
        assertThat(e.offset()).isBetween(0L, (long) b.length);
      } catch (RuntimeException e) {
        throw new AssertionError("unchecked failure", e);
      }
    });
  }

  @Test
  void unsignedAccessorAgreesWithBigInteger() {
    BigInteger twoTo64 = BigInteger.ONE.shiftLeft(64);
    qt().withExamples(3000).forAll(longs().all()).checkAssert(l -> {
      BigInteger reference = BigInteger.valueOf(l).mod(twoTo64);
      JsonNumber n = new JsonNumber(reference.toString());
      try {
        assertThat(n.asUnsignedLong()).isEqualTo(l);
      } catch (JsonException e) {
        throw new AssertionError(e);
      }
      JsonNumber above = new JsonNumber(reference.add(twoTo64).toString());
      try {
        above.asUnsignedLong();
        throw new AssertionError("accepted " + above);
      } catch (JsonException e) {
        assertThat(e.reason()).isEqualTo(JsonException.Reason.NUMBER_OUT_OF_RANGE);
      }
    });
  }
}
