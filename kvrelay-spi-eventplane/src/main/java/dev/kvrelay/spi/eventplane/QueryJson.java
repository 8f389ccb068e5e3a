package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonNull;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.eventplane.WorkerKvQueryDecodeException.Reason;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the JSON field readers and writers shared by {@link WorkerKvQueryCodec} and
 * {@link RouterEventJson}: typed reads that turn every defect into a {@link WorkerKvQueryDecodeException}
 * naming the field, and unsigned 64-bit numbers.
 */
final class QueryJson {

  private QueryJson() {}

  /** An optional unsigned 64-bit value: a number, or null when absent. */
  static JsonValue optional(OptionalLong v) {
    return v.isPresent() ? JsonNumber.ofUnsigned(v.getAsLong()) : JsonNull.INSTANCE;
  }

  /** Parses JSON text; malformed text is {@code MALFORMED_JSON}. */
  static JsonValue parse(String json) throws WorkerKvQueryDecodeException {
    try {
      return Json.parse(json);
    } catch (JsonException e) {
      throw new WorkerKvQueryDecodeException(Reason.MALFORMED_JSON, "", String.valueOf(e.getMessage()), e);
    }
  }

  /** Parses UTF-8 JSON; malformed input is {@code MALFORMED_JSON}. */
  static JsonValue parse(byte[] utf8) throws WorkerKvQueryDecodeException {
    try {
      return Json.parse(utf8);
    } catch (JsonException e) {
      throw new WorkerKvQueryDecodeException(Reason.MALFORMED_JSON, "", String.valueOf(e.getMessage()), e);
    }
  }

  /** {@code v} as an object, else {@code WRONG_TYPE}. */
  static JsonObject object(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonObject o) {
      return o;
    }
    throw wrongType(field, "an object", v);
  }

  /** {@code v} as an array, else {@code WRONG_TYPE}. */
  static JsonArray array(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonArray a) {
      return a;
    }
    throw wrongType(field, "an array", v);
  }

  /** {@code v} as a string, else {@code WRONG_TYPE}. */
  static String string(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (v instanceof JsonString s) {
      return s.value();
    }
    throw wrongType(field, "a string", v);
  }

  /** Member {@code name} of {@code o}, else {@code MISSING_FIELD} at {@code path.name}. */
  static JsonValue required(JsonObject o, String name, String path) throws WorkerKvQueryDecodeException {
    JsonValue v = o.get(name);
    if (v == null) {
      throw new WorkerKvQueryDecodeException(Reason.MISSING_FIELD, join(path, name), "required field is absent", null);
    }
    return v;
  }

  /** {@code v} as an unsigned 64-bit number ({@code WRONG_TYPE} or {@code OUT_OF_RANGE}). */
  static long u64(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    if (!(v instanceof JsonNumber n)) {
      throw wrongType(field, "an unsigned integer", v);
    }
    try {
      return n.asUnsignedLong();
    } catch (JsonException e) {
      throw new WorkerKvQueryDecodeException(Reason.OUT_OF_RANGE, field,
          "expected 0..18446744073709551615, got " + n.text(), e);
    }
  }

  /** {@code v} as an unsigned 32-bit number ({@code WRONG_TYPE} or {@code OUT_OF_RANGE}). */
  static int u32(JsonValue v, String field) throws WorkerKvQueryDecodeException {
    long x = u64(v, field);
    if (Long.compareUnsigned(x, 0xFFFF_FFFFL) > 0) {
      throw new WorkerKvQueryDecodeException(Reason.OUT_OF_RANGE, field,
          "expected 0..4294967295, got " + Long.toUnsignedString(x), null);
    }
    return (int) x;
  }

  /** An optional unsigned 64-bit member: empty when absent or null. */
  static OptionalLong optionalU64(@Nullable JsonValue v, String field) throws WorkerKvQueryDecodeException {
    return v == null || v instanceof JsonNull ? OptionalLong.empty() : OptionalLong.of(u64(v, field));
  }

  /** A {@code WRONG_TYPE} error naming what was expected and what came. */
  static WorkerKvQueryDecodeException wrongType(String field, String expected, JsonValue got) {
    return new WorkerKvQueryDecodeException(Reason.WRONG_TYPE, field, "expected " + expected + ", got " + describe(got),
        null);
  }

  /** The JSON type name of {@code v}, for error messages. */
  static String describe(JsonValue v) {
    return v.typeName();
  }

  /** {@code path.name}, or {@code name} at the top level. */
  static String join(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }
}
