package dev.kvrelay.engine;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: every setting of a {@link RelayEngineConfig}, with its configuration key,
 * its environment variable and, for the numeric knobs, the default and the inclusive bounds
 * ({@code producer.md} §7.1–§7.4, {@code wan-grpc.md} §3.1).
 *
 * <p>Timer knobs ({@link #isTimer()}) follow the WAN timer rule: ≠ 0, ≤ {@link #MAX_TIMER_MS} (365 days),
 * and {@code now + duration} must not overflow. WAN-only knobs ({@link #isWanOnly()}) may only be set
 * together with a bind address.
 */
public enum RelayConfigKey {
  /** The {@code --dc-id} string (§1.2); required. */
  DC_ID("dc_id", "DYN_DC_ID"),
  /** The backing runtime's instance id (§1.1); optional, no environment variable. */
  DRT_INSTANCE_ID("drt_instance_id", null),
  /** The namespace allowlist (§8.1). */
  NAMESPACES("namespaces", "DYN_RELAY_NAMESPACES"),
  /** Watch every namespace (§8.1); implied when no scope is set. */
  WATCH_ALL("watch_all", "DYN_RELAY_WATCH_ALL"),
  /** Endpoint prefixes narrowing the scope (§8.1). */
  ENDPOINT_PREFIXES("endpoint_prefixes", "DYN_RELAY_ENDPOINT_PREFIXES"),
  /** The WAN listen address; unset means no WAN listener ({@code wan-grpc.md} §6.4). */
  BIND("bind", "DYN_RELAY_BIND"),

  /** Expected unique blocks per pool; sizes the CKF ({@code ckf-cbi1.md} §4). */
  EXPECTED_UNIQUE_BLOCKS("expected_unique_blocks", 1_048_576L, 1, 53_687_091L, false, false),
  /** Events that trigger an immediate publication ({@code producer.md} §3.4). */
  PUBLICATION_THRESHOLD("publication_threshold", 16, 1, Integer.MAX_VALUE, false, false),
  /** Delay of the one-shot publication timer ({@code producer.md} §3.4). */
  PUBLICATION_DELAY_MS("publication_delay_ms", 1, 1, RelayConfigKey.MAX_TIMER_MS, true, false),
  /** Per-attempt recovery timeout, also the initial-wave deadline ({@code producer.md} §3.6). */
  RECOVERY_ATTEMPT_TIMEOUT_MS("recovery_attempt_timeout_ms", 30_000, 1, RelayConfigKey.MAX_TIMER_MS, true, false),

  /** gRPC encode and decode limit; at least {@code 4 194 368 + 65 536}. */
  MAX_MESSAGE_BYTES("max_message_bytes", 8_388_608L, 4_259_904L, Integer.MAX_VALUE, false, true),
  /** HTTP/2 PING interval. */
  KEEPALIVE_INTERVAL_MS("keepalive_interval_ms", 20_000, 1, RelayConfigKey.MAX_TIMER_MS, true, true),
  /** PING acknowledgement timeout. */
  KEEPALIVE_TIMEOUT_MS("keepalive_timeout_ms", 10_000, 1, RelayConfigKey.MAX_TIMER_MS, true, true),
  /** Pool-stream idle heartbeat. */
  POOL_HEARTBEAT_INTERVAL_MS("pool_heartbeat_interval_ms", 10_000, 1, RelayConfigKey.MAX_TIMER_MS, true, true),
  /** Readiness repeat interval. */
  READINESS_HEARTBEAT_INTERVAL_MS(
      "readiness_heartbeat_interval_ms", 10_000, 1, RelayConfigKey.MAX_TIMER_MS, true, true),
  /** Catalog repeat interval (env name chosen by this project, {@code wan-grpc.md} §0). */
  CATALOG_HEARTBEAT_INTERVAL_MS(
      "catalog_heartbeat_interval_ms", 10_000, 1, RelayConfigKey.MAX_TIMER_MS, true, true),
  /** Per-frame bootstrap progress deadline. */
  SNAPSHOT_PROGRESS_TIMEOUT_MS("snapshot_progress_timeout_ms", 60_000, 1, RelayConfigKey.MAX_TIMER_MS, true, true),
  /** Pool-load and serving-load window. */
  LOAD_WINDOW_MS("load_window_ms", 1_000, 1, RelayConfigKey.MAX_TIMER_MS, true, true),
  /** Broadcast ring per load hub, {@code 1..=65 536}. */
  LOAD_FANOUT_CAPACITY("load_fanout_capacity", 16, 1, 65_536, false, true),
  /** Per-pool-subscriber message bound. */
  PUBLICATION_QUEUE_CAPACITY("publication_queue_capacity", 16, 1, Integer.MAX_VALUE, false, true),
  /** Per-pool-subscriber byte bound; at least {@code 4 194 368 + 256}. */
  PUBLICATION_QUEUE_BYTES("publication_queue_bytes", 16_777_216L, 4_194_624L, Long.MAX_VALUE, false, true),
  /** Concurrent snapshot (and hub delta) encoders. */
  PUBLICATION_ENCODING_CONCURRENCY("publication_encoding_concurrency", 2, 1, Integer.MAX_VALUE, false, true),
  /** Catalog stream admission bound. */
  MAX_CATALOG_SUBSCRIBERS("max_catalog_subscribers", 64, 1, Integer.MAX_VALUE, false, true),
  /** Total pool stream admission bound. */
  MAX_POOL_STREAMS_TOTAL("max_pool_streams_total", 64, 1, Integer.MAX_VALUE, false, true),
  /** Subscribers per pool hub. */
  MAX_SUBSCRIBERS_PER_POOL("max_subscribers_per_pool", 64, 1, Integer.MAX_VALUE, false, true),
  /** Resident (initialized) pool hubs, idle ones included. */
  MAX_INITIALIZED_POOL_HUBS("max_initialized_pool_hubs", 64, 1, Integer.MAX_VALUE, false, true),
  /** Readiness stream admission bound. */
  MAX_READINESS_SUBSCRIBERS("max_readiness_subscribers", 64, 1, Integer.MAX_VALUE, false, true),
  /** Pool-load stream admission bound. */
  MAX_LOAD_SUBSCRIBERS("max_load_subscribers", 64, 1, Integer.MAX_VALUE, false, true),
  /** Serving-load stream admission bound (env name chosen by this project, {@code wan-grpc.md} §0). */
  MAX_SERVING_LOAD_SUBSCRIBERS("max_serving_load_subscribers", 64, 1, Integer.MAX_VALUE, false, true);

  /** Largest accepted timer value: 365 days in milliseconds. */
  public static final long MAX_TIMER_MS = 31_536_000_000L;

  private final String key;
  private final @Nullable String envName;
  private final boolean numeric;
  private final long defaultValue;
  private final long min;
  private final long max;
  private final boolean timer;
  private final boolean wanOnly;

  RelayConfigKey(String key, @Nullable String envName) {
    this.key = key;
    this.envName = envName;
    this.numeric = false;
    this.defaultValue = 0;
    this.min = 0;
    this.max = 0;
    this.timer = false;
    this.wanOnly = false;
  }

  RelayConfigKey(String key, long defaultValue, long min, long max, boolean timer, boolean wanOnly) {
    this.key = key;
    this.envName = "DYN_RELAY_" + key.toUpperCase(java.util.Locale.ROOT);
    this.numeric = true;
    this.defaultValue = defaultValue;
    this.min = min;
    this.max = max;
    this.timer = timer;
    this.wanOnly = wanOnly;
  }

  /** The configuration key, e.g. {@code max_message_bytes}. */
  public String key() {
    return key;
  }

  /** The environment variable, e.g. {@code DYN_RELAY_MAX_MESSAGE_BYTES}, or null if there is none. */
  public @Nullable String envName() {
    return envName;
  }

  /** True for the positive-integer knobs that have a default and bounds. */
  public boolean isNumeric() {
    return numeric;
  }

  /** The default of a numeric knob (0 for the others). */
  public long defaultValue() {
    return defaultValue;
  }

  /** The smallest accepted value of a numeric knob (inclusive). */
  public long min() {
    return min;
  }

  /** The largest accepted value of a numeric knob (inclusive). */
  public long max() {
    return max;
  }

  /** True for millisecond timer knobs. */
  public boolean isTimer() {
    return timer;
  }

  /** True for knobs that require a bind address. */
  public boolean isWanOnly() {
    return wanOnly;
  }
}
