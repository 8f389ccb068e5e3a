package dev.kvrelay.spi.discovery.sources;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonLimits;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one valid sources document ({@code producer.md} §8.2), with its namespaces sorted
 * and its revision.
 *
 * <p>{@link #parse} is the one validator: exactly the members {@code version} (an unsigned 32-bit integer equal to
 * 1), {@code connectionRevision} (optional; JSON null equals absent) and {@code sources} (an array of objects with
 * exactly a string {@code "namespace"}); the connection revision must equal the running Relay's; at most {@value
 * #MAX_SOURCES} sources; each namespace 1..512 characters of {@code [A-Za-z0-9_-]}, unique. Checks run in that
 * order (structure first, as upstream's deserializer does), and the first failure is the typed {@link
 * SourcesException}.
 *
 * <p>The revision is the lowercase hex SHA-256 of the canonical JSON: compact, members in the order {@code
 * version}, {@code connectionRevision} (omitted if absent), {@code sources}, sources sorted by namespace, with Go
 * {@code encoding/json}'s HTML-safe escaping ({@code &}, {@code <}, {@code >}, U+2028, U+2029 as {@code \\uXXXX}).
 *
 * @param version the format version (always 1)
 * @param connectionRevision the document's connection revision, or {@code null}
 * @param namespaces the sources' namespaces, sorted, unique
 * @param revision the lowercase hex SHA-256 of {@link #canonicalJson()}
 */
public record SourcesDocument(
    int version, @Nullable String connectionRevision, List<String> namespaces, String revision) {

  /** Largest accepted file: 1 MiB. */
  public static final int MAX_BYTES = 1024 * 1024;
  /** Most sources in one document. */
  public static final int MAX_SOURCES = 4096;
  /** Longest namespace, and longest configured connection revision (UTF-8 bytes). */
  public static final int MAX_NAME_BYTES = 512;

  private static final Set<String> DOCUMENT_FIELDS = Set.of("version", "connectionRevision", "sources");
  private static final JsonLimits LIMITS = new JsonLimits(JsonLimits.DEFAULT_MAX_DEPTH, MAX_BYTES);

  /** Copies the list. */
  public SourcesDocument {
    namespaces = List.copyOf(namespaces);
    Objects.requireNonNull(revision, "revision");
  }

  /**
   * Parses and validates a sources file's bytes.
   *
   * @param utf8 the file's contents
   * @param configuredConnectionRevision the running Relay's {@code DYN_RELAY_CONNECTION_REVISION}, or {@code null}
   * @throws SourcesException the first problem found
   */
  public static SourcesDocument parse(byte[] utf8, @Nullable String configuredConnectionRevision)
      throws SourcesException {
    if (utf8.length > MAX_BYTES) {
      throw new SourcesException(SourcesException.Reason.SIZE_LIMIT);
    }
    JsonValue root;
    try {
      root = Json.parse(utf8, LIMITS);
    } catch (JsonException e) {
      // the reader's message may quote the input: only its reason and offset are kept
      throw new SourcesException(SourcesException.Reason.INVALID_JSON,
          e.reason().name().toLowerCase(java.util.Locale.ROOT) + " at offset " + e.offset(), null);
    }
    JsonObject doc = object(root, "the document");
    for (String name : doc.members().keySet()) {
      if (!DOCUMENT_FIELDS.contains(name)) {
        throw new SourcesException(SourcesException.Reason.UNKNOWN_FIELD, "an unknown top-level member", null);
      }
    }
    long version = version(doc.get("version"));
    String connection = connectionRevision(doc.get("connectionRevision"));
    List<String> namespaces = sources(doc.get("sources"));

    if (version != 1) {
      throw new SourcesException(SourcesException.Reason.UNSUPPORTED_VERSION);
    }
    if (!Objects.equals(connection, configuredConnectionRevision)
        || (configuredConnectionRevision != null && !validConnectionRevision(configuredConnectionRevision))) {
      throw new SourcesException(SourcesException.Reason.CONNECTION_REVISION_MISMATCH);
    }
    if (namespaces.size() > MAX_SOURCES) {
      throw new SourcesException(SourcesException.Reason.TOO_MANY_SOURCES);
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < namespaces.size(); i++) {
      String ns = namespaces.get(i);
      if (!validNamespace(ns)) {
        throw new SourcesException(SourcesException.Reason.INVALID_NAMESPACE, "sources[" + i + "]", null);
      }
      if (!seen.add(ns)) {
        throw new SourcesException(SourcesException.Reason.DUPLICATE_NAMESPACE, "sources[" + i + "]", null);
      }
    }
    List<String> sorted = new ArrayList<>(namespaces);
    sorted.sort(null);
    return new SourcesDocument(1, connection, sorted, revisionOf(canonicalJson(connection, sorted)));
  }

  /** True for a configured connection revision the Relay accepts: non-empty, at most 512 UTF-8 bytes. */
  public static boolean validConnectionRevision(String value) {
    return !value.isEmpty() && value.getBytes(StandardCharsets.UTF_8).length <= MAX_NAME_BYTES;
  }

  /** True for a source namespace: 1..512 characters of {@code [A-Za-z0-9_-]}. */
  public static boolean validNamespace(String ns) {
    if (ns.isEmpty() || ns.length() > MAX_NAME_BYTES) {
      return false;
    }
    for (int i = 0; i < ns.length(); i++) {
      char c = ns.charAt(i);
      boolean ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** The canonical JSON text this document's revision is the SHA-256 of. */
  public String canonicalJson() {
    return canonicalJson(connectionRevision, namespaces);
  }

  private static String canonicalJson(@Nullable String connection, List<String> sortedNamespaces) {
    List<JsonValue> sources = new ArrayList<>(sortedNamespaces.size());
    for (String ns : sortedNamespaces) {
      sources.add(JsonObject.builder().put("namespace", ns).build());
    }
    JsonObject canonical = JsonObject.builder()
        .put("version", 1)
        .putIfPresent("connectionRevision", connection)
        .put("sources", new JsonArray(sources))
        .build();
    // Go encoding/json's HTML-safe escaping on top of the compact form; these characters only occur inside strings
    return Json.write(canonical)
        .replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029");
  }

  private static String revisionOf(String canonical) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(canonical.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  private static JsonObject object(@Nullable JsonValue v, String where) throws SourcesException {
    if (!(v instanceof JsonObject jsonObject)) {
      throw new SourcesException(SourcesException.Reason.WRONG_TYPE, where + " is not an object", null);
    }
    return jsonObject;
  }

  private static long version(@Nullable JsonValue v) throws SourcesException {
    if (v == null) {
      throw new SourcesException(SourcesException.Reason.MISSING_FIELD, "version", null);
    }
    if (!(v instanceof JsonNumber jsonNumber)) {
      throw new SourcesException(SourcesException.Reason.WRONG_TYPE, "version", null);
    }
    long value;
    try {
      value = jsonNumber.asLong();
    } catch (JsonException e) {
      throw new SourcesException(SourcesException.Reason.WRONG_TYPE, "version", null);
    }
    if (value < 0 || value > 0xFFFF_FFFFL) {
      throw new SourcesException(SourcesException.Reason.WRONG_TYPE, "version", null);
    }
    return value;
  }

  private static @Nullable String connectionRevision(@Nullable JsonValue v) throws SourcesException {
    if (v == null || v.isNull()) {
      return null;
    }
    if (!(v instanceof JsonString jsonString)) {
      throw new SourcesException(SourcesException.Reason.WRONG_TYPE, "connectionRevision", null);
    }
    return jsonString.value();
  }

  private static List<String> sources(@Nullable JsonValue v) throws SourcesException {
    if (v == null) {
      throw new SourcesException(SourcesException.Reason.MISSING_FIELD, "sources", null);
    }
    if (!(v instanceof JsonArray jsonArray)) {
      throw new SourcesException(SourcesException.Reason.WRONG_TYPE, "sources", null);
    }
    List<JsonValue> elements = jsonArray.elements();
    List<String> out = new ArrayList<>(elements.size());
    for (int i = 0; i < elements.size(); i++) {
      String where = "sources[" + i + "]";
      JsonObject source = object(elements.get(i), where);
      for (Map.Entry<String, JsonValue> m : source.members().entrySet()) {
        if (!m.getKey().equals("namespace")) {
          throw new SourcesException(SourcesException.Reason.UNKNOWN_FIELD, where, null);
        }
      }
      JsonValue ns = source.get("namespace");
      if (ns == null) {
        throw new SourcesException(SourcesException.Reason.MISSING_FIELD, where + ".namespace", null);
      }
      if (!(ns instanceof JsonString jsonString)) {
        throw new SourcesException(SourcesException.Reason.WRONG_TYPE, where + ".namespace", null);
      }
      out.add(jsonString.value());
    }
    return out;
  }
}
