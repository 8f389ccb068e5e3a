package dev.kvrelay.engine;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe reader of the launcher's environment variables into a {@link
 * RelayEngineConfig.Builder} ({@code producer.md} §7.1–§7.2). Parse errors become violations of the
 * builder, so {@code build()} reports them together with the cross-field ones.
 */
final class RelayEnvironment {
  private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private RelayEnvironment() {}

  static RelayEngineConfig.Builder read(Map<String, String> env) {
    RelayEngineConfig.Builder b = new RelayEngineConfig.Builder(true);
    String dc = env.get("DYN_DC_ID");
    if (dc != null) {
      if (ConfigText.isBlank(dc)) {
        b.markPresent(RelayConfigKey.DC_ID);
        b.reject(RelayConfigKey.DC_ID, RelayConfigViolation.Reason.REQUIRED, "--dc-id or DYN_DC_ID is required");
      } else {
        b.dcId(dc);
      }
    }
    readScope(env, b);
    String bind = env.get("DYN_RELAY_BIND");
    if (bind != null) {
      b.bind(bind);
    }
    for (RelayConfigKey key : RelayConfigKey.values()) {
      if (key.isNumeric()) {
        readKnob(env, b, key);
      }
    }
    return b;
  }

  private static void readScope(Map<String, String> env, RelayEngineConfig.Builder b) {
    String ns = env.get("DYN_RELAY_NAMESPACES");
    if (ns != null) {
      List<String> items = csv(b, RelayConfigKey.NAMESPACES, ns);
      if (items != null) {
        b.namespaces(items);
      } else {
        b.markPresent(RelayConfigKey.NAMESPACES);
      }
    }
    String all = env.get("DYN_RELAY_WATCH_ALL");
    if (all != null) {
      Boolean flag = ConfigText.parseBoolean(all);
      if (flag == null) {
        b.markPresent(RelayConfigKey.WATCH_ALL);
        b.reject(RelayConfigKey.WATCH_ALL, RelayConfigViolation.Reason.NOT_A_BOOLEAN,
            "DYN_RELAY_WATCH_ALL must be a boolean value");
      } else if (flag || ns == null) {
        b.watchAll(flag);
      }
      // DYN_RELAY_WATCH_ALL=false next to DYN_RELAY_NAMESPACES: the allowlist decides (§7.1 step 2).
    }
    String prefixes = env.get("DYN_RELAY_ENDPOINT_PREFIXES");
    if (prefixes != null) {
      List<String> items = csv(b, RelayConfigKey.ENDPOINT_PREFIXES, prefixes);
      if (items != null) {
        b.endpointPrefixes(items);
      }
    }
  }

  /** Splits on {@code ,} and strips items; an empty item is a violation (null result). Repeats are left to the builder. */
  private static @Nullable List<String> csv(RelayEngineConfig.Builder b, RelayConfigKey key, String text) {
    List<String> items = new ArrayList<>();
    for (String raw : text.split(",", -1)) {
      String item = ConfigText.pythonStrip(raw);
      if (item.isEmpty()) {
        b.reject(key, RelayConfigViolation.Reason.BLANK, key.envName() + ": empty item in comma-separated list");
        return null;
      }
      items.add(item);
    }
    return items;
  }

  private static void readKnob(Map<String, String> env, RelayEngineConfig.Builder b, RelayConfigKey key) {
    String name = key.envName();
    String text = name == null ? null : env.get(name);
    if (text == null) {
      return;
    }
    BigInteger v = ConfigText.pythonInt(text);
    if (v == null) {
      b.markPresent(key);
      b.reject(key, RelayConfigViolation.Reason.NOT_AN_INTEGER,
          name + ": invalid literal for int() with base 10: '" + text + "'");
    } else if (v.signum() < 0) {
      b.markPresent(key);
      b.reject(key, RelayConfigViolation.Reason.NOT_POSITIVE, name + ": must be positive");
    } else if (v.compareTo(U64_MAX) > 0) {
      b.markPresent(key);
      b.reject(key, RelayConfigViolation.Reason.ABOVE_MAXIMUM,
          name + ": must be at most " + key.max() + ", got " + v);
    } else {
      b.set(key, v.longValue());
    }
  }
}
