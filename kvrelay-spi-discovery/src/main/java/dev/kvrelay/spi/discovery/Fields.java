package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonBoolean;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to one decode call; typed access to the members of one JSON object, with
 * failures as {@link DiscoveryDecodeException}s naming the dotted field path. A member that is absent or
 * JSON null counts as absent everywhere.
 */
final class Fields {
  private final JsonObject object;
  private final String path;

  private Fields(JsonObject object, String path) {
    this.object = object;
    this.path = path;
  }

  /** Wraps {@code value}, which must be an object; {@code path} names it in errors ("" for the root). */
  static Fields of(@Nullable JsonValue value, String path) throws DiscoveryDecodeException {
    if (!(value instanceof JsonObject jsonObject)) {
      throw wrongType(path, "an object", value);
    }
    return new Fields(jsonObject, path);
  }

  /** The dotted path of this object ("" for the root). */
  String path() {
    return path;
  }

  JsonObject object() {
    return object;
  }

  String field(String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  boolean has(String name) {
    JsonValue v = object.get(name);
    return v != null && !v.isNull();
  }

  @Nullable JsonValue raw(String name) {
    JsonValue v = object.get(name);
    return v == null || v.isNull() ? null : v;
  }

  JsonValue required(String name) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    if (v == null) {
      throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.MISSING_FIELD, field(name), "required field is missing");
    }
    return v;
  }

  String requiredString(String name) throws DiscoveryDecodeException {
    return asString(name, required(name));
  }

  @Nullable String optionalString(String name) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    return v == null ? null : asString(name, v);
  }

  long requiredU64(String name) throws DiscoveryDecodeException {
    return asU64(name, required(name));
  }

  OptionalLong optionalU64(String name) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    return v == null ? OptionalLong.empty() : OptionalLong.of(asU64(name, v));
  }

  /** A u32 as a long in 0..4294967295. */
  long requiredU32(String name) throws DiscoveryDecodeException {
    return asU32(name, required(name));
  }

  long u32(String name, long defaultValue) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    return v == null ? defaultValue : asU32(name, v);
  }

  OptionalLong optionalU32(String name) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    return v == null ? OptionalLong.empty() : OptionalLong.of(asU32(name, v));
  }

  boolean bool(String name, boolean defaultValue) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    return v == null ? defaultValue : asBoolean(name, v);
  }

  @Nullable Boolean optionalBoolean(String name) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    return v == null ? null : asBoolean(name, v);
  }

  Fields requiredObject(String name) throws DiscoveryDecodeException {
    return of(required(name), field(name));
  }

  @Nullable Fields optionalObject(String name) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    return v == null ? null : of(v, field(name));
  }

  @Nullable JsonArray optionalArray(String name) throws DiscoveryDecodeException {
    JsonValue v = raw(name);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonArray jsonArray)) {
      throw wrongType(field(name), "an array", v);
    }
    return jsonArray;
  }

  /** An array of strings; absent or null ⇒ empty. */
  List<String> stringList(String name) throws DiscoveryDecodeException {
    JsonArray array = optionalArray(name);
    return array == null ? List.of() : strings(field(name), array);
  }

  static List<String> strings(String field, JsonArray array) throws DiscoveryDecodeException {
    List<String> out = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      JsonValue e = array.get(i);
      if (!(e instanceof JsonString jsonString)) {
        throw wrongType(field + "[" + i + "]", "a string", e);
      }
      out.add(jsonString.value());
    }
    return List.copyOf(out);
  }

  private String asString(String name, JsonValue v) throws DiscoveryDecodeException {
    if (!(v instanceof JsonString jsonString)) {
      throw wrongType(field(name), "a string", v);
    }
    return jsonString.value();
  }

  private boolean asBoolean(String name, JsonValue v) throws DiscoveryDecodeException {
    if (!(v instanceof JsonBoolean jsonBoolean)) {
      throw wrongType(field(name), "a boolean", v);
    }
    return jsonBoolean.value();
  }

  private long asU64(String name, JsonValue v) throws DiscoveryDecodeException {
    if (!(v instanceof JsonNumber jsonNumber)) {
      throw wrongType(field(name), "an unsigned integer", v);
    }
    try {
      return jsonNumber.asUnsignedLong();
    } catch (JsonException e) {
      throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.INVALID_VALUE, field(name), "",
          "not a u64: " + e.getMessage(), e);
    }
  }

  private long asU32(String name, JsonValue v) throws DiscoveryDecodeException {
    long value = asU64(name, v);
    if (Long.compareUnsigned(value, 0xFFFF_FFFFL) > 0) {
      throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.INVALID_VALUE, field(name),
          Long.toUnsignedString(value) + " is not a u32");
    }
    return value;
  }

  static DiscoveryDecodeException wrongType(String field, String expected, @Nullable JsonValue got) {
    return new DiscoveryDecodeException(DiscoveryDecodeException.Reason.WRONG_TYPE, field,
        "expected " + expected + ", got " + (got == null ? "nothing" : got.typeName()));
  }

  static DiscoveryDecodeException invalid(String field, String message) {
    return new DiscoveryDecodeException(DiscoveryDecodeException.Reason.INVALID_VALUE, field, message);
  }
}
