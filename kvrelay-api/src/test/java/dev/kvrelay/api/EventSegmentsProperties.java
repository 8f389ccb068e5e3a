package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Round trips, canonical decoding and injectivity of the §1.3 segment codec and the scope strings. */
class EventSegmentsProperties {

  private static final List<String> TRICKY =
      List.of(".", "/", "%", " ", "é", "\uD83D\uDE00", "-", "_", "~", "%2F", "a", "Z", "9");

  /** Well-formed strings of up to 12 code points, biased to characters that need (or look like) escapes. */
  private static Gen<String> segments() {
    Gen<String> tricky = Generate.range(0, 8).zip(Generate.range(0, TRICKY.size() - 1).map(i -> TRICKY.get(i)),
        (n, piece) -> piece.repeat(n));
    return TestGens.wellFormed(0, 12).zip(tricky, TestGens.wellFormed(0, 3), (a, b, c) -> a + b + c);
  }

  /** The §1.3 rule written out byte by byte: an exact model of what encode must return. */
  private static String model(String s) {
    StringBuilder sb = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xFF);
      boolean unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-".indexOf(c) >= 0;
      sb.append(unreserved ? String.valueOf(c) : String.format("%%%02X", b & 0xFF));
    }
    return sb.toString();
  }

  @Test
  void encodingMatchesTheByteModelAndRoundTrips() {
    qt().withExamples(3000).forAll(segments()).checkAssert(s -> {
      String enc = EventSegments.encode(s);
      assertThat(enc).isEqualTo(model(s)).matches("([A-Za-z0-9_-]|%[0-9A-F]{2})*");
      try {
        assertThat(EventSegments.decode(enc)).isEqualTo(s);
      } catch (WireValidationException e) {
        throw new AssertionError(enc, e);
      }
    });
  }

  @Test
  void decodeAcceptsExactlyTheCanonicalFormAndNeverThrowsUnchecked() {
    Gen<String> pieces = Generate.pick(List.of("%", "%2F", "%2f", "%41", "%5F", "%C3", "%A9", "%F0%9F", "%98%80",
        "%G", "%0", "é", ".", "a", "Z", "_", "-", " ", "\uD83D"));
    Gen<String> encoded = Generate.range(0, 8).flatMap(n -> rs -> {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < n; i++) {
        sb.append(pieces.generate(rs));
      }
      return sb.toString();
    });
    qt().withExamples(4000).forAll(encoded).checkAssert(e -> {
      String decoded;
      try {
        decoded = EventSegments.decode(e);
      } catch (WireValidationException ex) {
        assertThat(ex.kind()).isEqualTo(WireValidationException.Kind.MALFORMED);
        return;
      } catch (RuntimeException ex) {
        throw new AssertionError("unchecked exception from decode of " + e, ex);
      }
      // Accepted only if it is exactly what encode writes for the decoded text.
      assertThat(model(decoded)).isEqualTo(e);
    });
  }

  @Test
  void scopeStringsAreInjective() {
    // A tiny alphabet with '.' and '/' makes texts that collide when joined likely.
    Gen<String> names = Generate.pick(List.of("a", "b", ".", "/", "a.b", "b.a", "a/b", "%2E", "namespace", "component"))
        .zip(Generate.pick(List.of("", "a", ".", "/")), (x, y) -> x + y);
    Gen<DynamoEndpointId> endpoints = names.zip(names, names, (n, c, e) -> new DynamoEndpointId(n, c, e));
    Gen<EventScope> scopes = Generate.oneOf(
        names.map(EventScope.Namespace::new),
        names.zip(names, EventScope.Component::new),
        endpoints.map(EventScope.Endpoint::new));
    qt().withExamples(5000).forAll(scopes, scopes).checkAssert((a, b) -> {
      assertThat(a.path().equals(b.path())).as("%s / %s", a, b).isEqualTo(a.equals(b));
      assertThat(a.subjectPrefix().equals(b.subjectPrefix())).as("%s / %s", a, b).isEqualTo(a.equals(b));
      assertThat(a.subject("t").equals(b.subject("t"))).as("%s / %s", a, b).isEqualTo(a.equals(b));
    });
  }
}
