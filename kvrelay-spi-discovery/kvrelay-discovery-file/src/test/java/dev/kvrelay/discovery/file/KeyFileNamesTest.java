package dev.kvrelay.discovery.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class KeyFileNamesTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
    // plugins-wire §8 "Key → file"
    "dynamo/backend/generate/17216e63492ef21f | dynamo%2Fbackend%2Fgenerate%2F17216e63492ef21f",
    // '-', '_', '.', '~', '%', space and '+' are all encoded (java.net.URLEncoder would keep - _ . and write '+')
    "team-a_b.c~d e+f%g | team%2Da%5Fb%2Ec%7Ed%20e%2Bf%25g",
    // an event path, whose segments are already percent-encoded: '%' is encoded again
    "namespace/ns%2Ea/topic/kv-events/3e8 | namespace%2Fns%252Ea%2Ftopic%2Fkv%2Devents%2F3e8",
    // UTF-8 bytes, uppercase hex
    "modèle/ü | mod%C3%A8le%2F%C3%BC",
  })
  void encodesEveryByteOutsideAlphanumericsAsUppercasePercentEscapes(String key, String name) throws Exception {
    assertThat(KeyFileNames.encode(key)).isEqualTo(name);
    assertThat(KeyFileNames.decode(name)).isEqualTo(key);
  }

  @Test
  void differsFromUrlEncoder() {
    String key = "dynamo/backend/generate-v2/1a";
    assertThat(KeyFileNames.encode(key)).isNotEqualTo(URLEncoder.encode(key, StandardCharsets.UTF_8));
  }

  @Test
  void decodeInvertsEncodeForEveryString() {
    qt().forAll(strings().allPossible().ofLengthBetween(0, 40))
        .assuming(s -> s.codePoints().noneMatch(c -> c >= 0xD800 && c <= 0xDFFF))
        .check(s -> {
          try {
            String name = KeyFileNames.encode(s);
            return KeyFileNames.decode(name).equals(s) && name.chars().allMatch(c -> c < 0x80);
          } catch (DiscoveryDecodeException e) {
            return false;
          }
        });
  }

  @ParameterizedTest
  @ValueSource(strings = {
    "notes.txt",          // '.' must be encoded
    "a%2fb",              // lowercase hex is not what writers produce
    "a%2",                // truncated escape
    "a%zzb",              // not hex
    "%41",                // escapes a byte that is stored as itself
    "%C3",                // escapes bytes that are not UTF-8
    "ü",                  // a raw non-ASCII character
  })
  void rejectsNamesNoWriterProduces(String name) {
    assertThatThrownBy(() -> KeyFileNames.decode(name))
        .isInstanceOfSatisfying(DiscoveryDecodeException.class,
            e -> assertThat(e.reason()).isEqualTo(DiscoveryDecodeException.Reason.INVALID_PATH));
  }

  @Test
  void temporaryFilesAreRecognised() {
    assertThat(KeyFileNames.isTemporary(".tmp_00ff00ff00ff00ff")).isTrue();
    assertThat(KeyFileNames.isTemporary("%2Etmp%5F")).isFalse();
  }
}
