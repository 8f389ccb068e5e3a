package dev.kvrelay.api.json;

import java.util.Objects;

/**
 * Immutable and thread-safe: a JSON string. The value is well-formed UTF-16 (no unpaired surrogate), so it
 * always has an exact UTF-8 encoding.
 *
 * @param value the decoded string value
 */
public record JsonString(String value) implements JsonValue {

  /**
   * @throws IllegalArgumentException if {@code value} contains an unpaired surrogate
   */
  public JsonString {
    requireWellFormed(Objects.requireNonNull(value, "value"));
  }

  static void requireWellFormed(String value) {
    int bad = firstUnpairedSurrogate(value);
    if (bad >= 0) {
      throw new IllegalArgumentException("string has an unpaired surrogate at index " + bad);
    }
  }

  /** Index of the first unpaired surrogate, or -1. */
  static int firstUnpairedSurrogate(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
          return i;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public String typeName() {
    return "string";
  }

  @Override
  public String toString() {
    return toJson();
  }
}
