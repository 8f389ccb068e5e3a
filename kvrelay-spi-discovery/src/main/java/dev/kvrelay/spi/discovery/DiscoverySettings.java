package dev.kvrelay.spi.discovery;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the configuration a provider reads (environment variables such as {@code
 * ETCD_ENDPOINTS}, {@code POD_NAMESPACE}, or embedder-supplied values), so providers never touch {@link
 * System#getenv} themselves. {@link #toString()} lists names only, never values (they may be secrets).
 */
public final class DiscoverySettings {
  private static final DiscoverySettings EMPTY = new DiscoverySettings(new TreeMap<>());

  private final Map<String, String> values;

  private DiscoverySettings(SortedMap<String, String> values) {
    this.values = Collections.unmodifiableMap(values);
  }

  /** No settings. */
  public static DiscoverySettings empty() {
    return EMPTY;
  }

  /** A copy of {@code values}. */
  public static DiscoverySettings of(Map<String, String> values) {
    TreeMap<String, String> copy = new TreeMap<>();
    for (Map.Entry<String, String> e : values.entrySet()) {
      copy.put(Objects.requireNonNull(e.getKey(), "name"), Objects.requireNonNull(e.getValue(), "value"));
    }
    return new DiscoverySettings(copy);
  }

  /** A snapshot of this process's environment (for launchers; providers receive it as an argument). */
  public static DiscoverySettings fromEnvironment() {
    return of(System.getenv());
  }

  /** The value of {@code name}, or {@code null}. */
  public @Nullable String get(String name) {
    return values.get(name);
  }

  /** The value of {@code name}, or {@code defaultValue} when absent or empty. */
  public String get(String name, String defaultValue) {
    String v = values.get(name);
    return v == null || v.isEmpty() ? defaultValue : v;
  }

  /**
   * The value of {@code name}.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) naming the setting when absent or empty
   */
  public String require(String name) throws DiscoveryException {
    String v = values.get(name);
    if (v == null || v.isEmpty()) {
      throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION, name + " is not set");
    }
    return v;
  }

  /** A copy with {@code name} set to {@code value}. */
  public DiscoverySettings with(String name, String value) {
    TreeMap<String, String> copy = new TreeMap<>(values);
    copy.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    return new DiscoverySettings(copy);
  }

  /** Every setting, sorted by name (unmodifiable). */
  public Map<String, String> asMap() {
    return values;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DiscoverySettings discoverySettings && values.equals(discoverySettings.values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  /** The setting names only. */
  @Override
  public String toString() {
    return "DiscoverySettings" + values.keySet();
  }
}
