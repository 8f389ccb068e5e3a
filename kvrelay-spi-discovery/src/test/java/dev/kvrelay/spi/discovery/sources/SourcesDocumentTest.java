package dev.kvrelay.spi.discovery.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.discovery.sources.SourcesException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.jspecify.annotations.Nullable;

/** The sources document ({@code producer.md} §8.2): revision vectors ({@code vectors.md} §10.1) and every rejection. */
class SourcesDocumentTest {

  private static SourcesDocument parse(String json, @Nullable String configured) throws SourcesException {
    return SourcesDocument.parse(json.getBytes(StandardCharsets.UTF_8), configured);
  }

  // ---- vectors.md §10.1 (C vectors; SourcesRevisionReferenceTest confirms them with Python's hashlib) ----

  @Test
  void vector1TwoSourcesRevision() throws Exception {
    SourcesDocument d = parse("{\"version\":1,\"sources\":[{\"namespace\":\"a\"},{\"namespace\":\"b\"}]}", null);
    assertThat(d.revision()).isEqualTo("2ab89c10c04007ae0b4ca7cecd7734f9d9faaca5d20d4b9f6fe0a40105c7a804");
    assertThat(d.namespaces()).containsExactly("a", "b");
  }

  @Test
  void vector2WithConnectionRevision() throws Exception {
    SourcesDocument d = parse("{\"version\":1,\"connectionRevision\":\"connection\",\"sources\":[{\"namespace\":\"a\"},"
        + "{\"namespace\":\"b\"}]}", "connection");
    assertThat(d.revision()).isEqualTo("d793bc7776b7e52603aba31342748306200023f865cac23f3d3dd83be7d9f565");
    assertThat(d.connectionRevision()).isEqualTo("connection");
  }

  @Test
  void vector3EmptySources() throws Exception {
    SourcesDocument d = parse("{\"version\":1,\"sources\":[]}", null);
    assertThat(d.revision()).isEqualTo("b6e0bb87bd5035885d74e6e0a9345b7baad41e7ecfd1a03f366f11483213bd6e");
    assertThat(d.namespaces()).isEmpty();
  }

  @Test
  void theRevisionIgnoresSourceOrderMemberOrderAndWhitespace() throws Exception {
    SourcesDocument d = parse(" {\n \"sources\" : [ {\"namespace\":\"b\"} , {\"namespace\":\"a\"} ], \"version\" : 1 }\n",
        null);
    assertThat(d.revision()).isEqualTo("2ab89c10c04007ae0b4ca7cecd7734f9d9faaca5d20d4b9f6fe0a40105c7a804");
    assertThat(d.canonicalJson()).isEqualTo("{\"version\":1,\"sources\":[{\"namespace\":\"a\"},{\"namespace\":\"b\"}]}");
  }

  @Test
  void aNullConnectionRevisionIsAbsent() throws Exception {
    assertThat(parse("{\"version\":1,\"connectionRevision\":null,\"sources\":[]}", null).revision())
        .isEqualTo("b6e0bb87bd5035885d74e6e0a9345b7baad41e7ecfd1a03f366f11483213bd6e");
  }

  @Test
  void theCanonicalFormEscapesLikeGoEncodingJson() throws Exception {
    String rev = "a&b<c>d\u2028e\u2029f\"g\\h";
    SourcesDocument d = parse("{\"version\":1,\"connectionRevision\":" + jsonString(rev) + ",\"sources\":[]}", rev);
    assertThat(d.canonicalJson()).isEqualTo(
        "{\"version\":1,\"connectionRevision\":\"a\\u0026b\\u003cc\\u003ed\\u2028e\\u2029f\\\"g\\\\h\",\"sources\":[]}");
  }

  private static String jsonString(String s) {
    return new dev.kvrelay.api.json.JsonString(s).toJson();
  }

  // ---- limits ----

  @Test
  void limitsAreInclusive() throws Exception {
    StringBuilder many = new StringBuilder("{\"version\":1,\"sources\":[");
    for (int i = 0; i < SourcesDocument.MAX_SOURCES; i++) {
      many.append(i == 0 ? "" : ",").append("{\"namespace\":\"n").append(i).append("\"}");
    }
    assertThat(parse(many + "]}", null).namespaces()).hasSize(4096);
    assertThat(reasonOf(many + ",{\"namespace\":\"extra\"}]}", null)).isEqualTo(Reason.TOO_MANY_SOURCES);

    String ns512 = "n".repeat(512);
    assertThat(parse("{\"version\":1,\"sources\":[{\"namespace\":\"" + ns512 + "\"}]}", null).namespaces())
        .containsExactly(ns512);
    assertThat(reasonOf("{\"version\":1,\"sources\":[{\"namespace\":\"" + ns512 + "x\"}]}", null))
        .isEqualTo(Reason.INVALID_NAMESPACE);

    String rev512 = "r".repeat(512);
    assertThat(parse("{\"version\":1,\"connectionRevision\":\"" + rev512 + "\",\"sources\":[]}", rev512)
        .connectionRevision()).isEqualTo(rev512);
    assertThat(reasonOf("{\"version\":1,\"connectionRevision\":\"" + rev512 + "x\",\"sources\":[]}", rev512 + "x"))
        .isEqualTo(Reason.CONNECTION_REVISION_MISMATCH);

    byte[] exactly = padded(SourcesDocument.MAX_BYTES);
    assertThat(SourcesDocument.parse(exactly, null).namespaces()).isEmpty();
    assertThatThrownBy(() -> SourcesDocument.parse(padded(SourcesDocument.MAX_BYTES + 1), null))
        .isInstanceOfSatisfying(SourcesException.class, e -> assertThat(e.reason()).isEqualTo(Reason.SIZE_LIMIT));
  }

  /** {@code {"version":1,"sources":[]}} padded with trailing spaces to {@code size} bytes. */
  private static byte[] padded(int size) {
    String doc = "{\"version\":1,\"sources\":[]}";
    return (doc + " ".repeat(size - doc.length())).getBytes(StandardCharsets.US_ASCII);
  }

  // ---- every rejection, typed; the contents never echoed ----

  private static final String SECRET = "s3cr3t-token";

  static Stream<Arguments> rejections() {
    return Stream.of(
        Arguments.of("syntax", "{\"version\":1,\"sources\":[" + SECRET, null, Reason.INVALID_JSON),
        Arguments.of("not UTF-8", "\u00ff", null, Reason.INVALID_JSON),
        Arguments.of("repeated member", "{\"version\":1,\"version\":1,\"sources\":[]}", null, Reason.INVALID_JSON),
        Arguments.of("not an object", "[\"" + SECRET + "\"]", null, Reason.WRONG_TYPE),
        Arguments.of("unknown member revision", "{\"version\":1,\"revision\":\"" + SECRET + "\",\"sources\":[]}", null,
            Reason.UNKNOWN_FIELD),
        Arguments.of("unknown member", "{\"version\":1,\"" + SECRET + "\":1,\"sources\":[]}", null, Reason.UNKNOWN_FIELD),
        Arguments.of("extra source key", "{\"version\":1,\"sources\":[{\"namespace\":\"a\",\"id\":\"" + SECRET + "\"}]}",
            null, Reason.UNKNOWN_FIELD),
        Arguments.of("no version", "{\"sources\":[]}", null, Reason.MISSING_FIELD),
        Arguments.of("no sources", "{\"version\":1}", null, Reason.MISSING_FIELD),
        Arguments.of("no namespace", "{\"version\":1,\"sources\":[{}]}", null, Reason.MISSING_FIELD),
        Arguments.of("version string", "{\"version\":\"1\",\"sources\":[]}", null, Reason.WRONG_TYPE),
        Arguments.of("version 1.0", "{\"version\":1.0,\"sources\":[]}", null, Reason.WRONG_TYPE),
        Arguments.of("version -1", "{\"version\":-1,\"sources\":[]}", null, Reason.WRONG_TYPE),
        Arguments.of("version 2^32", "{\"version\":4294967296,\"sources\":[]}", null, Reason.WRONG_TYPE),
        Arguments.of("sources null", "{\"version\":1,\"sources\":null}", null, Reason.WRONG_TYPE),
        Arguments.of("sources object", "{\"version\":1,\"sources\":{}}", null, Reason.WRONG_TYPE),
        Arguments.of("source not an object", "{\"version\":1,\"sources\":[\"" + SECRET + "\"]}", null, Reason.WRONG_TYPE),
        Arguments.of("namespace number", "{\"version\":1,\"sources\":[{\"namespace\":7}]}", null, Reason.WRONG_TYPE),
        Arguments.of("connectionRevision number", "{\"version\":1,\"connectionRevision\":7,\"sources\":[]}", null,
            Reason.WRONG_TYPE),
        Arguments.of("version 2", "{\"version\":2,\"sources\":[]}", null, Reason.UNSUPPORTED_VERSION),
        Arguments.of("version 0", "{\"version\":0,\"sources\":[]}", null, Reason.UNSUPPORTED_VERSION),
        Arguments.of("revision in document only",
            "{\"version\":1,\"connectionRevision\":\"" + SECRET + "\",\"sources\":[]}", null,
            Reason.CONNECTION_REVISION_MISMATCH),
        Arguments.of("revision configured only", "{\"version\":1,\"sources\":[]}", SECRET,
            Reason.CONNECTION_REVISION_MISMATCH),
        Arguments.of("revisions differ", "{\"version\":1,\"connectionRevision\":\"" + SECRET + "\",\"sources\":[]}",
            "other", Reason.CONNECTION_REVISION_MISMATCH),
        Arguments.of("configured revision empty", "{\"version\":1,\"connectionRevision\":\"\",\"sources\":[]}", "",
            Reason.CONNECTION_REVISION_MISMATCH),
        Arguments.of("empty namespace", "{\"version\":1,\"sources\":[{\"namespace\":\"\"}]}", null,
            Reason.INVALID_NAMESPACE),
        Arguments.of("dotted namespace", "{\"version\":1,\"sources\":[{\"namespace\":\"" + SECRET + ".a\"}]}", null,
            Reason.INVALID_NAMESPACE),
        Arguments.of("namespace with space", "{\"version\":1,\"sources\":[{\"namespace\":\"a b\"}]}", null,
            Reason.INVALID_NAMESPACE),
        Arguments.of("non-ASCII namespace", "{\"version\":1,\"sources\":[{\"namespace\":\"mod\u00e8le\"}]}", null,
            Reason.INVALID_NAMESPACE),
        Arguments.of("duplicate namespace",
            "{\"version\":1,\"sources\":[{\"namespace\":\"" + SECRET + "\"},{\"namespace\":\"" + SECRET + "\"}]}", null,
            Reason.DUPLICATE_NAMESPACE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejections")
  void eachMalformedCaseHasItsOwnReasonAndNeverEchoesTheContents(String name, String json, @Nullable String configured,
      Reason expected) {
    byte[] bytes = name.equals("not UTF-8") ? new byte[] {(byte) 0xFF} : json.getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> SourcesDocument.parse(bytes, configured))
        .isInstanceOfSatisfying(SourcesException.class, e -> {
          assertThat(e.reason()).isEqualTo(expected);
          assertThat(e.getMessage()).startsWith(expected.message()).doesNotContain(SECRET);
          if (e.getCause() != null) {
            assertThat(String.valueOf(e.getCause().getMessage())).doesNotContain(SECRET);
          }
        });
  }

  @Test
  void theFirstBadSourceIsNamedByPosition() {
    assertThatThrownBy(() -> parse("{\"version\":1,\"sources\":[{\"namespace\":\"a\"},{\"namespace\":\"-ok_\"},"
        + "{\"namespace\":\"a\"},{\"namespace\":\"b c\"}]}", null))
        .isInstanceOfSatisfying(SourcesException.class, e -> {
          assertThat(e.reason()).isEqualTo(Reason.DUPLICATE_NAMESPACE);
          assertThat(e.getMessage()).isEqualTo("duplicate source namespace (sources[2])");
        });
  }

  private static Reason reasonOf(String json, @Nullable String configured) {
    try {
      parse(json, configured);
      throw new AssertionError("accepted: " + json.substring(0, Math.min(80, json.length())));
    } catch (SourcesException e) {
      return e.reason();
    }
  }

  @Test
  void namespacesUseTheSourcesCharset() {
    assertThat(List.of("a", "A-z_0", "-", "_")).allMatch(SourcesDocument::validNamespace);
    assertThat(List.of("", "a.b", "a/b", " a", "a\n")).noneMatch(SourcesDocument::validNamespace);
  }
}
