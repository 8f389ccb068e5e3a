package dev.kvrelay.api.json;

/** Immutable and thread-safe: JSON {@code true} or {@code false}. */
public enum JsonBoolean implements JsonValue {
  /** {@code true}. */
  TRUE,
  /** {@code false}. */
  FALSE;

  /** The constant for {@code value}. */
  public static JsonBoolean of(boolean value) {
    return value ? TRUE : FALSE;
  }

  /** The Java value. */
  public boolean value() {
    return this == TRUE;
  }

  @Override
  public String typeName() {
    return "boolean";
  }

  @Override
  public String toString() {
    return value() ? "true" : "false";
  }
}
