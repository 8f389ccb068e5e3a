package dev.kvrelay.spi.discovery.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The revision confirmed with independent reference code ({@code vectors.md}: C vectors need one): a Python script
 * written from {@code producer.md} §8.2 (sort, compact serde-style JSON in field order, Go's HTML-safe escaping)
 * hashed with Python's {@code hashlib}, for the three §10.1 documents and documents whose connection revision
 * needs escaping.
 */
class SourcesRevisionReferenceTest {
  private static final Path PYTHON = Path.of("/usr/bin/python3");

  private static final String REFERENCE = String.join("\n",
      "import hashlib, json, sys",
      "for line in sys.stdin:",
      "    doc = json.loads(line)",
      "    canon = {'version': doc['version']}",
      "    if doc.get('connectionRevision') is not None:",
      "        canon['connectionRevision'] = doc['connectionRevision']",
      "    canon['sources'] = sorted(({'namespace': s['namespace']} for s in doc['sources']),",
      "                              key=lambda s: s['namespace'].encode('utf-8'))",
      "    text = json.dumps(canon, separators=(',', ':'), ensure_ascii=False)",
      "    for ch, esc in (('&', '\\\\u0026'), ('<', '\\\\u003c'), ('>', '\\\\u003e'),",
      "                    ('\\u2028', '\\\\u2028'), ('\\u2029', '\\\\u2029')):",
      "        text = text.replace(ch, esc)",
      "    print(hashlib.sha256(text.encode('utf-8')).hexdigest())",
      "");

  private static String doc(String connection, String... namespaces) {
    List<JsonValue> sources = new ArrayList<>();
    for (String ns : namespaces) {
      sources.add(JsonObject.builder().put("namespace", ns).build());
    }
    JsonObject.Builder b = JsonObject.builder().put("version", 1);
    if (connection != null) {
      b.put("connectionRevision", new JsonString(connection));
    }
    return b.put("sources", new JsonArray(sources)).build().toJson();
  }

  @Test
  void revisionsMatchPythonHashlibOverTheSpecsCanonicalForm() throws Exception {
    assumeTrue(Files.isExecutable(PYTHON), "/usr/bin/python3 is not installed");
    List<String> docs = List.of(
        doc(null, "a", "b"),
        doc("connection", "a", "b"),
        doc(null),
        doc(null, "zeta", "Alpha", "_x", "-y", "9"),
        doc("rev&<>\u2028\u2029", "ns"),
        doc("quote\"back\\slash/\u00e9\u4e2d\ud83d\ude00", "b", "a"),
        doc("tab\tnl\ncr\rbs\bff\fnul\u0000us\u001f", "a"));
    List<String> expected = python(docs);
    assertThat(expected.subList(0, 3)).containsExactly(
        "2ab89c10c04007ae0b4ca7cecd7734f9d9faaca5d20d4b9f6fe0a40105c7a804",
        "d793bc7776b7e52603aba31342748306200023f865cac23f3d3dd83be7d9f565",
        "b6e0bb87bd5035885d74e6e0a9345b7baad41e7ecfd1a03f366f11483213bd6e");
    for (int i = 0; i < docs.size(); i++) {
      String d = docs.get(i);
      String configured = i == 1 ? "connection" : connectionOf(d);
      SourcesDocument parsed = SourcesDocument.parse(d.getBytes(StandardCharsets.UTF_8), configured);
      assertThat(parsed.revision()).as("document %d", i).isEqualTo(expected.get(i));
    }
  }

  private static String connectionOf(String doc) throws Exception {
    JsonValue v = ((JsonObject) dev.kvrelay.api.json.Json.parse(doc)).get("connectionRevision");
    return v == null ? null : ((JsonString) v).value();
  }

  private static List<String> python(List<String> docs) throws Exception {
    Process p = new ProcessBuilder(PYTHON.toString(), "-c", REFERENCE).redirectErrorStream(true).start();
    p.getOutputStream().write((String.join("\n", docs) + "\n").getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(text).isZero();
    return List.of(text.trim().split("\n"));
  }
}
