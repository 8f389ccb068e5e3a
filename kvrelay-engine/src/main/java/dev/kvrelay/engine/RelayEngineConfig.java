package dev.kvrelay.engine;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the validated configuration of one relay engine — the DC id, the relay
 * identity inputs, the discovery scope, the CKF sizing, the publication cadence, the recovery timeout and
 * every WAN, publication and admission knob ({@code producer.md} §7, {@code wan-grpc.md} §3.1).
 *
 * <p>Built with {@link #builder()} (set-once setters; {@link Builder#build()} reports every violation at
 * once in a {@link RelayConfigException}) or read from environment variables with {@link
 * #fromEnvironment(Map)}. Numeric knobs are unsigned 64-bit values carried in a {@code long}; see {@link
 * RelayConfigKey} for defaults and bounds.
 */
public final class RelayEngineConfig {
  private final String dcName;
  private final DcId dcId;
  private final @Nullable Long drtInstanceId;
  private final DiscoveryScope scope;
  private final @Nullable BindAddress bind;
  private final EnumMap<RelayConfigKey, Long> values;
  private final int bucketCount;

  private RelayEngineConfig(String dcName, DcId dcId, @Nullable Long drtInstanceId, DiscoveryScope scope,
      @Nullable BindAddress bind, EnumMap<RelayConfigKey, Long> values, int bucketCount) {
    this.dcName = dcName;
    this.dcId = dcId;
    this.drtInstanceId = drtInstanceId;
    this.scope = scope;
    this.bind = bind;
    this.values = values;
    this.bucketCount = bucketCount;
  }

  /** A new, empty builder; only {@link Builder#dcId(String)} is required. */
  public static Builder builder() {
    return new Builder(false);
  }

  /**
   * Reads the configuration from environment variables ({@code DYN_DC_ID}, {@code DYN_RELAY_*}) with the
   * launcher's rules: positive integers parsed like Python {@code int()} ("{@code <NAME>: …}" errors),
   * booleans {@code 1/true/yes/on} / {@code 0/false/no/off}, comma-separated lists with stripped items,
   * WAN-only variables only together with {@code DYN_RELAY_BIND}, and the scope resolution order of
   * {@code producer.md} §7.1. Unknown {@code DYN_RELAY_*} names are ignored. Empty variables count as set.
   *
   * @throws RelayConfigException listing every violation
   */
  public static RelayEngineConfig fromEnvironment(Map<String, String> env) throws RelayConfigException {
    return RelayEnvironment.read(env).build();
  }

  /** The {@code --dc-id} string, as given. */
  public String dcName() {
    return dcName;
  }

  /** The DC id derived from {@link #dcName()}. */
  public DcId dcId() {
    return dcId;
  }

  /** The backing runtime's instance id, if the embedder supplied one ({@code producer.md} §1.1). */
  public OptionalLong drtInstanceId() {
    return drtInstanceId == null ? OptionalLong.empty() : OptionalLong.of(drtInstanceId);
  }

  /** What discovery watches. */
  public DiscoveryScope scope() {
    return scope;
  }

  /** The WAN listen address; empty when the WAN server is off. */
  public Optional<BindAddress> bind() {
    return Optional.ofNullable(bind);
  }

  /** True when a bind address is configured. */
  public boolean wanEnabled() {
    return bind != null;
  }

  /** The value of a numeric knob (the default unless set). */
  public long value(RelayConfigKey key) {
    if (!key.isNumeric()) {
      throw new IllegalArgumentException(key + " is not a numeric knob");
    }
    return values.getOrDefault(key, key.defaultValue());
  }

  /** True if the numeric knob was set explicitly (rather than defaulted). */
  public boolean isExplicit(RelayConfigKey key) {
    return values.containsKey(key);
  }

  /** Expected unique blocks per pool. */
  public long expectedUniqueBlocks() {
    return value(RelayConfigKey.EXPECTED_UNIQUE_BLOCKS);
  }

  /** CKF bucket count for {@link #expectedUniqueBlocks()} ({@code ckf-cbi1.md} §4). */
  public int bucketCount() {
    return bucketCount;
  }

  /** CKF format of every pool: default seed, {@link #bucketCount()} buckets. */
  public CkfFormat ckfFormat() {
    return CkfFormat.withDefaultSeed(bucketCount);
  }

  /** Events that trigger an immediate publication. */
  public int publicationThreshold() {
    return (int) value(RelayConfigKey.PUBLICATION_THRESHOLD);
  }

  /** Publication timer delay in milliseconds. */
  public long publicationDelayMs() {
    return value(RelayConfigKey.PUBLICATION_DELAY_MS);
  }

  /** Per-attempt recovery timeout in milliseconds. */
  public long recoveryAttemptTimeoutMs() {
    return value(RelayConfigKey.RECOVERY_ATTEMPT_TIMEOUT_MS);
  }

  /** gRPC encode and decode limit in bytes. */
  public int maxMessageBytes() {
    return (int) value(RelayConfigKey.MAX_MESSAGE_BYTES);
  }

  /** Per-pool-subscriber byte bound. */
  public long publicationQueueBytes() {
    return value(RelayConfigKey.PUBLICATION_QUEUE_BYTES);
  }

  /** Broadcast ring size per load hub. */
  public int loadFanoutCapacity() {
    return (int) value(RelayConfigKey.LOAD_FANOUT_CAPACITY);
  }

  /** Equal when every setting is equal (explicitly set knobs compare by value with defaulted ones). */
  @Override
  public boolean equals(@Nullable Object o) {
    if (!(o instanceof RelayEngineConfig other)) {
      return false;
    }
    if (!dcName.equals(other.dcName) || !Objects.equals(drtInstanceId, other.drtInstanceId)
        || !scope.equals(other.scope) || !Objects.equals(bind, other.bind)) {
      return false;
    }
    for (RelayConfigKey k : RelayConfigKey.values()) {
      if (k.isNumeric() && value(k) != other.value(k)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = Objects.hash(dcName, drtInstanceId, scope, bind);
    for (RelayConfigKey k : RelayConfigKey.values()) {
      if (k.isNumeric()) {
        h = 31 * h + Long.hashCode(value(k));
      }
    }
    return h;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("RelayEngineConfig[dc_id=").append(dcName).append(" (").append(dcId)
        .append("), scope=").append(scope).append(", bind=").append(bind == null ? "none" : bind.text());
    for (RelayConfigKey k : RelayConfigKey.values()) {
      if (k.isNumeric()) {
        sb.append(", ").append(k.key()).append('=').append(Long.toUnsignedString(value(k)));
      }
    }
    return sb.append(']').toString();
  }

  /**
   * Not thread-safe: a one-shot, set-once builder of {@link RelayEngineConfig}. Every setter may be
   * called at most once (a second call throws {@link IllegalStateException}); setters do not validate,
   * {@link #build()} does (the rules are in the package-private {@code RelayConfigValidator}), reporting every
   * violation at once. Unset knobs take their defaults.
   */
  public static final class Builder {
    private final boolean fromEnvironment;
    private final Set<RelayConfigKey> assigned = EnumSet.noneOf(RelayConfigKey.class);
    private final EnumMap<RelayConfigKey, Long> values = new EnumMap<>(RelayConfigKey.class);
    private final List<RelayConfigViolation> readViolations = new ArrayList<>();
    private @Nullable String dcName;
    private @Nullable Long drtInstanceId;
    private @Nullable List<String> namespaces;
    private @Nullable Boolean watchAll;
    private @Nullable List<String> endpointPrefixes;
    private @Nullable String bind;

    Builder(boolean fromEnvironment) {
      this.fromEnvironment = fromEnvironment;
    }

    private void claim(RelayConfigKey key) {
      if (!assigned.add(key)) {
        throw new IllegalStateException(key.key() + " was already set");
      }
    }

    /** The {@code --dc-id} string (required); the DC id is derived from it ({@code producer.md} §1.2). */
    public Builder dcId(String dcName) {
      Objects.requireNonNull(dcName, "dcName");
      claim(RelayConfigKey.DC_ID);
      this.dcName = dcName;
      return this;
    }

    /** The backing runtime's instance id (unsigned), constant for the process lifetime. */
    public Builder drtInstanceId(long drtInstanceId) {
      claim(RelayConfigKey.DRT_INSTANCE_ID);
      this.drtInstanceId = drtInstanceId;
      return this;
    }

    /** The namespace allowlist (excludes {@link #watchAll(boolean) watchAll(true)}). */
    public Builder namespaces(Collection<String> namespaces) {
      List<String> copy = List.copyOf(namespaces);
      claim(RelayConfigKey.NAMESPACES);
      this.namespaces = copy;
      return this;
    }

    /** Watch every namespace; {@code false} requires {@link #namespaces(Collection)}. */
    public Builder watchAll(boolean watchAll) {
      claim(RelayConfigKey.WATCH_ALL);
      this.watchAll = watchAll;
      return this;
    }

    /** Endpoint prefixes narrowing the scope (matched by whole segments). */
    public Builder endpointPrefixes(Collection<String> prefixes) {
      List<String> copy = List.copyOf(prefixes);
      claim(RelayConfigKey.ENDPOINT_PREFIXES);
      this.endpointPrefixes = copy;
      return this;
    }

    /** The WAN listen address text ({@code 127.0.0.1:5561}, {@code [::1]:5561}); enables the WAN server. */
    public Builder bind(String bindAddress) {
      Objects.requireNonNull(bindAddress, "bindAddress");
      claim(RelayConfigKey.BIND);
      this.bind = bindAddress;
      return this;
    }

    /**
     * Sets a numeric knob (an unsigned 64-bit value).
     *
     * @throws IllegalArgumentException if {@code key} is not numeric
     * @throws IllegalStateException if the knob was already set
     */
    public Builder set(RelayConfigKey key, long value) {
      if (!key.isNumeric()) {
        throw new IllegalArgumentException(key + " is not a numeric knob");
      }
      claim(key);
      values.put(key, value);
      return this;
    }

    /** Expected unique blocks per pool (default 1 048 576, at most 53 687 091). */
    public Builder expectedUniqueBlocks(long value) {
      return set(RelayConfigKey.EXPECTED_UNIQUE_BLOCKS, value);
    }

    /** Publication threshold in events (default 16). */
    public Builder publicationThreshold(long value) {
      return set(RelayConfigKey.PUBLICATION_THRESHOLD, value);
    }

    /** Publication timer delay in ms (default 1). */
    public Builder publicationDelayMs(long value) {
      return set(RelayConfigKey.PUBLICATION_DELAY_MS, value);
    }

    /** Recovery attempt timeout in ms (default 30 000). */
    public Builder recoveryAttemptTimeoutMs(long value) {
      return set(RelayConfigKey.RECOVERY_ATTEMPT_TIMEOUT_MS, value);
    }

    /** gRPC message limit in bytes (WAN; default 8 388 608, at least 4 259 904). */
    public Builder maxMessageBytes(long value) {
      return set(RelayConfigKey.MAX_MESSAGE_BYTES, value);
    }

    /** HTTP/2 keepalive interval in ms (WAN; default 20 000). */
    public Builder keepaliveIntervalMs(long value) {
      return set(RelayConfigKey.KEEPALIVE_INTERVAL_MS, value);
    }

    /** HTTP/2 keepalive timeout in ms (WAN; default 10 000). */
    public Builder keepaliveTimeoutMs(long value) {
      return set(RelayConfigKey.KEEPALIVE_TIMEOUT_MS, value);
    }

    /** Pool-stream heartbeat in ms (WAN; default 10 000). */
    public Builder poolHeartbeatIntervalMs(long value) {
      return set(RelayConfigKey.POOL_HEARTBEAT_INTERVAL_MS, value);
    }

    /** Readiness heartbeat in ms (WAN; default 10 000). */
    public Builder readinessHeartbeatIntervalMs(long value) {
      return set(RelayConfigKey.READINESS_HEARTBEAT_INTERVAL_MS, value);
    }

    /** Catalog heartbeat in ms (WAN; default 10 000). */
    public Builder catalogHeartbeatIntervalMs(long value) {
      return set(RelayConfigKey.CATALOG_HEARTBEAT_INTERVAL_MS, value);
    }

    /** Snapshot progress timeout in ms (WAN; default 60 000). */
    public Builder snapshotProgressTimeoutMs(long value) {
      return set(RelayConfigKey.SNAPSHOT_PROGRESS_TIMEOUT_MS, value);
    }

    /** Load window in ms (WAN; default 1 000). */
    public Builder loadWindowMs(long value) {
      return set(RelayConfigKey.LOAD_WINDOW_MS, value);
    }

    /** Load fan-out ring size (WAN; default 16, at most 65 536). */
    public Builder loadFanoutCapacity(long value) {
      return set(RelayConfigKey.LOAD_FANOUT_CAPACITY, value);
    }

    /** Per-subscriber publication queue messages (WAN; default 16). */
    public Builder publicationQueueCapacity(long value) {
      return set(RelayConfigKey.PUBLICATION_QUEUE_CAPACITY, value);
    }

    /** Per-subscriber publication queue bytes (WAN; default 16 777 216, at least 4 194 624). */
    public Builder publicationQueueBytes(long value) {
      return set(RelayConfigKey.PUBLICATION_QUEUE_BYTES, value);
    }

    /** Concurrent publication encoders (WAN; default 2). */
    public Builder publicationEncodingConcurrency(long value) {
      return set(RelayConfigKey.PUBLICATION_ENCODING_CONCURRENCY, value);
    }

    /** Catalog subscribers bound (WAN; default 64). */
    public Builder maxCatalogSubscribers(long value) {
      return set(RelayConfigKey.MAX_CATALOG_SUBSCRIBERS, value);
    }

    /** Total pool streams bound (WAN; default 64). */
    public Builder maxPoolStreamsTotal(long value) {
      return set(RelayConfigKey.MAX_POOL_STREAMS_TOTAL, value);
    }

    /** Subscribers per pool bound (WAN; default 64). */
    public Builder maxSubscribersPerPool(long value) {
      return set(RelayConfigKey.MAX_SUBSCRIBERS_PER_POOL, value);
    }

    /** Initialized pool hubs bound (WAN; default 64). */
    public Builder maxInitializedPoolHubs(long value) {
      return set(RelayConfigKey.MAX_INITIALIZED_POOL_HUBS, value);
    }

    /** Readiness subscribers bound (WAN; default 64). */
    public Builder maxReadinessSubscribers(long value) {
      return set(RelayConfigKey.MAX_READINESS_SUBSCRIBERS, value);
    }

    /** Pool-load subscribers bound (WAN; default 64). */
    public Builder maxLoadSubscribers(long value) {
      return set(RelayConfigKey.MAX_LOAD_SUBSCRIBERS, value);
    }

    /** Serving-load subscribers bound (WAN; default 64). */
    public Builder maxServingLoadSubscribers(long value) {
      return set(RelayConfigKey.MAX_SERVING_LOAD_SUBSCRIBERS, value);
    }

    /** Records a violation found while reading the environment. */
    void reject(RelayConfigKey key, RelayConfigViolation.Reason reason, String message) {
      readViolations.add(new RelayConfigViolation(key, reason, message));
    }

    /** Marks a key as present (read from the environment) without a usable value. */
    void markPresent(RelayConfigKey key) {
      assigned.add(key);
    }

    /**
     * Validates every setting and builds the configuration. Timers are checked with the timer rule
     * against a clock reading of 0; use {@link #build(long)} to check {@code now + duration} too.
     *
     * @throws RelayConfigException listing every violation
     */
    public RelayEngineConfig build() throws RelayConfigException {
      return build(0L);
    }

    /**
     * Validates every setting, including that {@code nowMillis + duration} does not overflow a signed
     * 64-bit millisecond clock for every timer in use (WAN timers only when a bind address is set), and
     * builds the configuration.
     *
     * @param nowMillis the caller's clock reading in milliseconds (time is passed in; no clock is read)
     * @throws RelayConfigException listing every violation
     */
    public RelayEngineConfig build(long nowMillis) throws RelayConfigException {
      RelayConfigValidator rules = new RelayConfigValidator(fromEnvironment, assigned, values, dcName, namespaces,
          watchAll, endpointPrefixes, bind);
      List<RelayConfigViolation> out = new ArrayList<>();
      DcId id = rules.checkDcId(out);
      DiscoveryScope resolvedScope = rules.checkScope(out);
      BindAddress bindAddress = rules.checkBind(out);
      int buckets = rules.checkKnobs(out, nowMillis, bindAddress != null);
      out.addAll(readViolations);
      if (!out.isEmpty()) {
        out.sort(java.util.Comparator.comparing(RelayConfigViolation::key));
        throw new RelayConfigException(out);
      }
      return new RelayEngineConfig(Objects.requireNonNull(dcName), Objects.requireNonNull(id), drtInstanceId,
          Objects.requireNonNull(resolvedScope), bindAddress, new EnumMap<>(values), buckets);
    }
  }
}
