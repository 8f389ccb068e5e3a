package dev.kvrelay.api.json;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Immutable and thread-safe: a JSON array.
 *
 * @param elements the elements in order (unmodifiable)
 */
public record JsonArray(List<JsonValue> elements) implements JsonValue {

  /** Copies the elements. */
  public JsonArray {
    List<JsonValue> copy = new ArrayList<>(elements.size());
    for (JsonValue v : elements) {
      copy.add(Objects.requireNonNull(v, "element"));
    }
    elements = Collections.unmodifiableList(copy);
  }

  /** An array of the given elements. */
  public static JsonArray of(JsonValue... elements) {
    return new JsonArray(List.of(elements));
  }

  /** An array of strings. */
  public static JsonArray ofStrings(List<String> strings) {
    List<JsonValue> values = new ArrayList<>(strings.size());
    for (String s : strings) {
      values.add(new JsonString(s));
    }
    return new JsonArray(values);
  }

  /** Number of elements. */
  public int size() {
    return elements.size();
  }

  /** The element at {@code index}. */
  public JsonValue get(int index) {
    return elements.get(index);
  }

  @Override
  public String typeName() {
    return "array";
  }

  @Override
  public String toString() {
    return toJson();
  }
}
