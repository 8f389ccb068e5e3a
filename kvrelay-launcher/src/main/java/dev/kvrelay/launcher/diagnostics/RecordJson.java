package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonBoolean;
import dev.kvrelay.api.json.JsonNull;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: writes the engine's counter records as JSON, every component under its snake_case
 * name, so a counter the engine adds appears in {@code stats} without a change here (nothing omitted). Longs are
 * written unsigned (sequences are u64; counters are never negative), enums as their lower-case names, maps as
 * objects sorted by key.
 */
final class RecordJson {
  private RecordJson() {}

  /** {@code r} as a JSON object; components named in {@code skip} are left out. */
  static JsonObject of(Record r, String... skip) {
    JsonObject.Builder b = JsonObject.builder();
    List<String> skipped = List.of(skip);
    for (RecordComponent c : r.getClass().getRecordComponents()) {
      if (skipped.contains(c.getName())) {
        continue;
      }
      Object v;
      try {
        v = c.getAccessor().invoke(r);
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new IllegalStateException("cannot read " + r.getClass().getSimpleName() + "." + c.getName(), e);
      }
      b.put(snake(c.getName()), value(v));
    }
    return b.build();
  }

  static JsonValue value(@Nullable Object v) {
    if (v == null) {
      return JsonNull.INSTANCE;
    }
    if (v instanceof Long l) {
      return JsonNumber.ofUnsigned(l);
    }
    if (v instanceof Integer i) {
      return JsonNumber.of(i);
    }
    if (v instanceof Boolean z) {
      return JsonBoolean.of(z);
    }
    if (v instanceof Enum<?> e) {
      return new JsonString(e.name().toLowerCase(Locale.ROOT));
    }
    if (v instanceof Record r) {
      return of(r);
    }
    if (v instanceof Map<?, ?> m) {
      TreeMap<String, JsonValue> sorted = new TreeMap<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        Object k = e.getKey();
        sorted.put(k instanceof Enum<?> en ? en.name().toLowerCase(Locale.ROOT) : String.valueOf(k), value(e.getValue()));
      }
      return new JsonObject(sorted);
    }
    if (v instanceof List<?> list) {
      List<JsonValue> out = new ArrayList<>(list.size());
      for (Object o : list) {
        out.add(value(o));
      }
      return new JsonArray(out);
    }
    return new JsonString(v.toString());
  }

  /** {@code capacityOmissions} → {@code capacity_omissions}. */
  static String snake(String camel) {
    StringBuilder b = new StringBuilder(camel.length() + 8);
    for (int i = 0; i < camel.length(); i++) {
      char ch = camel.charAt(i);
      if (Character.isUpperCase(ch)) {
        b.append('_').append(Character.toLowerCase(ch));
      } else {
        b.append(ch);
      }
    }
    return b.toString();
  }
}
