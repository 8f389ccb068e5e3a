package dev.kvrelay.api.json;

/**
 * Immutable and thread-safe: one node of a parsed JSON document.
 *
 * <p>The six RFC 8259 kinds are the permitted implementations: {@link JsonObject}, {@link JsonArray},
 * {@link JsonString}, {@link JsonNumber}, {@link JsonBoolean} and {@link JsonNull}. Equality is
 * structural: objects compare their members regardless of order, numbers compare their exact text
 * ({@code 1} and {@code 1.0} differ).
 */
public sealed interface JsonValue permits JsonObject, JsonArray, JsonString, JsonNumber, JsonBoolean, JsonNull {

  /** The kind's name for messages: {@code object}, {@code array}, {@code string}, {@code number}, {@code boolean} or {@code null}. */
  String typeName();

  /** True for {@link JsonNull}. */
  default boolean isNull() {
    return false;
  }

  /** The compact JSON text of this value ({@link Json#write}). */
  default String toJson() {
    return Json.write(this);
  }
}
