package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.api.json.JsonNull;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the {@code sources} member of the health object (producer.md §7.5, camelCase on the
 * wire: {@code desiredRevision}, {@code appliedRevision}, {@code count}, {@code lastError}). In discovery mode both
 * revisions and the error are null and {@code count} is the number of namespaces in the scope (0 for watch-all:
 * this project's choice, upstream does not document the discovery-mode value).
 *
 * @param desiredRevision the revision of the sources document last read (file mode), or null
 * @param appliedRevision the revision in force (file mode), or null
 * @param count the number of sources (namespaces) in force
 * @param lastError the last invalid update's error (file mode), or null
 */
public record SourcesStatus(@Nullable String desiredRevision, @Nullable String appliedRevision, int count,
    @Nullable String lastError) {

  /** Discovery mode with {@code namespaces} namespaces in the scope (0 = watch all). */
  public static SourcesStatus discovery(int namespaces) {
    return new SourcesStatus(null, null, namespaces, null);
  }

  /** The JSON member value. */
  public JsonObject toJson() {
    return JsonObject.builder()
        .put("desiredRevision", text(desiredRevision))
        .put("appliedRevision", text(appliedRevision))
        .put("count", JsonNumber.of(count))
        .put("lastError", text(lastError))
        .build();
  }

  static JsonValue text(@Nullable String s) {
    return s == null ? JsonNull.INSTANCE : new JsonString(s);
  }
}
