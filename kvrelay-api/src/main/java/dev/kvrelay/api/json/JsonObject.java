package dev.kvrelay.api.json;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a JSON object whose members keep their document (insertion) order.
 * Member names are unique: the reader rejects a repeated name ({@link JsonException.Reason#DUPLICATE_KEY}).
 *
 * @param members the members in insertion order (unmodifiable)
 */
public record JsonObject(Map<String, JsonValue> members) implements JsonValue {

  private static final JsonObject EMPTY = new JsonObject(Map.of());

  /** Copies the members, keeping the iteration order of the given map. */
  public JsonObject {
    LinkedHashMap<String, JsonValue> copy = new LinkedHashMap<>();
    for (Map.Entry<String, JsonValue> e : members.entrySet()) {
      JsonString.requireWellFormed(Objects.requireNonNull(e.getKey(), "member name"));
      copy.put(e.getKey(), Objects.requireNonNull(e.getValue(), "member value"));
    }
    members = Collections.unmodifiableMap(copy);
  }

  /** The empty object. */
  public static JsonObject of() {
    return EMPTY;
  }

  /** A builder that keeps insertion order. */
  public static Builder builder() {
    return new Builder();
  }

  /** The member named {@code name}, or {@code null} if absent. */
  public @Nullable JsonValue get(String name) {
    return members.get(name);
  }

  /** True if a member named {@code name} exists (its value may be JSON null). */
  public boolean has(String name) {
    return members.containsKey(name);
  }

  /** Number of members. */
  public int size() {
    return members.size();
  }

  /** A copy with member {@code name} set to {@code value} (replacing it in place, or appended). */
  public JsonObject with(String name, JsonValue value) {
    LinkedHashMap<String, JsonValue> copy = new LinkedHashMap<>(members);
    copy.put(name, value);
    return new JsonObject(copy);
  }

  @Override
  public String typeName() {
    return "object";
  }

  @Override
  public String toString() {
    return toJson();
  }

  /** Not thread-safe: confined to the building thread; collects members in insertion order. */
  public static final class Builder {
    private final LinkedHashMap<String, JsonValue> members = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Adds a member.
     *
     * @throws IllegalArgumentException if the name is already present
     */
    public Builder put(String name, JsonValue value) {
      if (members.putIfAbsent(name, Objects.requireNonNull(value, "value")) != null) {
        throw new IllegalArgumentException("duplicate member name '" + name + "'");
      }
      return this;
    }

    /** Adds a string member. */
    public Builder put(String name, String value) {
      return put(name, new JsonString(value));
    }

    /** Adds a number member from a signed long. */
    public Builder put(String name, long value) {
      return put(name, JsonNumber.of(value));
    }

    /** Adds a boolean member. */
    public Builder put(String name, boolean value) {
      return put(name, JsonBoolean.of(value));
    }

    /** Adds the member only if {@code value} is non-null. */
    public Builder putIfPresent(String name, @Nullable JsonValue value) {
      return value == null ? this : put(name, value);
    }

    /** Adds a string member only if {@code value} is non-null. */
    public Builder putIfPresent(String name, @Nullable String value) {
      return value == null ? this : put(name, value);
    }

    /** The object built so far. */
    public JsonObject build() {
      return new JsonObject(members);
    }
  }
}
