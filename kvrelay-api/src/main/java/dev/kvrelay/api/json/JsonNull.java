package dev.kvrelay.api.json;

/** Immutable and thread-safe: JSON {@code null}. */
public enum JsonNull implements JsonValue {
  /** The one null value. */
  INSTANCE;

  @Override
  public String typeName() {
    return "null";
  }

  @Override
  public boolean isNull() {
    return true;
  }

  @Override
  public String toString() {
    return "null";
  }
}
