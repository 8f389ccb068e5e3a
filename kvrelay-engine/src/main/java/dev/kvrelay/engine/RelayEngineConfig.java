package dev.kvrelay.engine;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CkfSizing;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
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
    if (!(o instanceof RelayEngineConfig)) {
      return false;
    }
    RelayEngineConfig other = (RelayEngineConfig) o;
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
   * {@link #build()} does, reporting every violation at once. Unset knobs take their defaults.
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
      List<RelayConfigViolation> out = new ArrayList<>();
      DcId id = checkDcId(out);
      DiscoveryScope resolvedScope = checkScope(out);
      BindAddress bindAddress = checkBind(out);
      int buckets = checkKnobs(out, nowMillis, bindAddress != null);
      out.addAll(readViolations);
      if (!out.isEmpty()) {
        out.sort(java.util.Comparator.comparing(RelayConfigViolation::key));
        throw new RelayConfigException(out);
      }
      return new RelayEngineConfig(Objects.requireNonNull(dcName), Objects.requireNonNull(id), drtInstanceId,
          Objects.requireNonNull(resolvedScope), bindAddress, new EnumMap<>(values), buckets);
    }

    private String label(RelayConfigKey key) {
      String env = key.envName();
      return fromEnvironment && env != null ? env + ":" : key.key();
    }

    private void add(List<RelayConfigViolation> out, RelayConfigKey key, RelayConfigViolation.Reason reason,
        String message) {
      out.add(new RelayConfigViolation(key, reason, message));
    }

    private @Nullable DcId checkDcId(List<RelayConfigViolation> out) {
      if (dcName == null) {
        if (!fromEnvironment || !assigned.contains(RelayConfigKey.DC_ID)) {
          add(out, RelayConfigKey.DC_ID, RelayConfigViolation.Reason.REQUIRED,
              fromEnvironment ? "--dc-id or DYN_DC_ID is required" : "dc_id is required");
        }
        return null;
      }
      try {
        return DcId.derive(dcName);
      } catch (WireValidationException e) {
        RelayConfigViolation.Reason reason = dcName.isEmpty() ? RelayConfigViolation.Reason.BLANK
            : e.detail().equals(DcId.WHITESPACE_MESSAGE) ? RelayConfigViolation.Reason.SURROUNDING_WHITESPACE
            : RelayConfigViolation.Reason.MALFORMED_TEXT;
        add(out, RelayConfigKey.DC_ID, reason, e.detail());
        return null;
      }
    }

    private @Nullable DiscoveryScope checkScope(List<RelayConfigViolation> out) {
      int before = out.size();
      boolean all;
      if (Boolean.TRUE.equals(watchAll) && namespaces != null) {
        add(out, RelayConfigKey.WATCH_ALL, RelayConfigViolation.Reason.INVALID_SCOPE, fromEnvironment
            ? "DYN_RELAY_NAMESPACES cannot be combined with a true DYN_RELAY_WATCH_ALL"
            : "watch_all cannot be combined with namespaces");
        all = true;
      } else if (Boolean.FALSE.equals(watchAll) && namespaces == null) {
        add(out, RelayConfigKey.WATCH_ALL, RelayConfigViolation.Reason.INVALID_SCOPE, fromEnvironment
            ? "DYN_RELAY_WATCH_ALL=false requires DYN_RELAY_NAMESPACES"
            : "watch_all=false requires namespaces");
        all = false;
      } else {
        all = namespaces == null;
      }
      Set<String> nsSet = new HashSet<>();
      if (namespaces != null) {
        if (namespaces.isEmpty()) {
          add(out, RelayConfigKey.NAMESPACES, RelayConfigViolation.Reason.INVALID_SCOPE,
              "discovery needs at least one namespace unless watch_all is set");
        }
        for (String ns : namespaces) {
          if (checkName(out, RelayConfigKey.NAMESPACES, "namespace", ns) && !nsSet.add(ns)) {
            add(out, RelayConfigKey.NAMESPACES, RelayConfigViolation.Reason.INVALID_SCOPE,
                label(RelayConfigKey.NAMESPACES) + " namespace '" + ns + "' is repeated");
          }
        }
      }
      List<String> prefixes = endpointPrefixes == null ? List.of() : endpointPrefixes;
      Set<String> seen = new HashSet<>();
      for (String p : prefixes) {
        if (!checkName(out, RelayConfigKey.ENDPOINT_PREFIXES, "endpoint prefix", p)) {
          continue;
        }
        if (!seen.add(p)) {
          add(out, RelayConfigKey.ENDPOINT_PREFIXES, RelayConfigViolation.Reason.INVALID_SCOPE,
              label(RelayConfigKey.ENDPOINT_PREFIXES) + " endpoint prefix '" + p + "' is repeated");
        } else if (!all && !insideNamespaces(p, nsSet)) {
          add(out, RelayConfigKey.ENDPOINT_PREFIXES, RelayConfigViolation.Reason.PREFIX_OUTSIDE_NAMESPACES,
              "endpoint prefix " + p + " is outside the configured namespaces");
        }
      }
      if (out.size() != before) {
        return null;
      }
      try {
        return all ? DiscoveryScope.watchAll(prefixes) : DiscoveryScope.namespaces(namespaces, prefixes);
      } catch (DiscoveryException e) {
        add(out, RelayConfigKey.NAMESPACES, RelayConfigViolation.Reason.INVALID_SCOPE, e.getMessage());
        return null;
      }
    }

    private static boolean insideNamespaces(String prefix, Set<String> namespaces) {
      for (String ns : namespaces) {
        if (prefix.equals(ns) || prefix.startsWith(ns + ".")) {
          return true;
        }
      }
      return false;
    }

    private boolean checkName(List<RelayConfigViolation> out, RelayConfigKey key, String what, String value) {
      if (ConfigText.isBlank(value)) {
        add(out, key, RelayConfigViolation.Reason.BLANK, label(key) + " " + what + " must not be blank");
        return false;
      }
      if (ConfigText.hasSurroundingWhitespace(value)) {
        add(out, key, RelayConfigViolation.Reason.SURROUNDING_WHITESPACE,
            label(key) + " " + what + " '" + value + "' must not have leading or trailing whitespace");
        return false;
      }
      return true;
    }

    private @Nullable BindAddress checkBind(List<RelayConfigViolation> out) {
      if (bind == null) {
        return null;
      }
      if (ConfigText.isBlank(bind)) {
        add(out, RelayConfigKey.BIND, RelayConfigViolation.Reason.BLANK, label(RelayConfigKey.BIND)
            + " must not be blank");
        return null;
      }
      Optional<BindAddress> parsed = BindAddress.tryParse(bind);
      if (parsed.isEmpty()) {
        add(out, RelayConfigKey.BIND, RelayConfigViolation.Reason.INVALID_BIND_ADDRESS, BindAddress.INVALID_MESSAGE);
        return null;
      }
      return parsed.get();
    }

    private int checkKnobs(List<RelayConfigViolation> out, long nowMillis, boolean hasBind) {
      int buckets = 0;
      for (RelayConfigKey key : RelayConfigKey.values()) {
        if (!key.isNumeric()) {
          continue;
        }
        if (key.isWanOnly() && !hasBind && assigned.contains(key) && bind == null) {
          add(out, key, RelayConfigViolation.Reason.REQUIRES_BIND, fromEnvironment
              ? key.envName() + " requires --bind or DYN_RELAY_BIND"
              : "tuning key " + key.key() + " requires bind to enable the WAN server");
        }
        Long set = values.get(key);
        long v = set == null ? key.defaultValue() : set;
        if (v == 0) {
          add(out, key, RelayConfigViolation.Reason.NOT_POSITIVE, label(key) + " must be positive");
        } else if (Long.compareUnsigned(v, key.min()) < 0) {
          add(out, key, RelayConfigViolation.Reason.BELOW_MINIMUM, label(key) + " must be at least " + key.min());
        } else if (key == RelayConfigKey.EXPECTED_UNIQUE_BLOCKS) {
          buckets = checkBuckets(out, v);
        } else if (Long.compareUnsigned(v, key.max()) > 0) {
          add(out, key, RelayConfigViolation.Reason.ABOVE_MAXIMUM, label(key) + " must be at most " + key.max()
              + ", got " + Long.toUnsignedString(v));
        } else if (key.isTimer() && (hasBind || !key.isWanOnly()) && overflows(nowMillis, v)) {
          add(out, key, RelayConfigViolation.Reason.DEADLINE_OVERFLOW,
              label(key) + " " + v + " ms overflows the deadline from now " + nowMillis);
        }
      }
      return buckets;
    }

    private static boolean overflows(long now, long duration) {
      long sum = now + duration;
      return ((now ^ sum) & (duration ^ sum)) < 0;
    }

    private int checkBuckets(List<RelayConfigViolation> out, long expected) {
      try {
        return CkfSizing.publishableBucketCount(expected);
      } catch (CkfConfigException e) {
        long needed;
        try {
          needed = CkfSizing.bucketCount(expected);
        } catch (CkfConfigException overflow) {
          add(out, RelayConfigKey.EXPECTED_UNIQUE_BLOCKS, RelayConfigViolation.Reason.BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM,
              label(RelayConfigKey.EXPECTED_UNIQUE_BLOCKS) + " " + Long.toUnsignedString(expected)
                  + " overflows the CKF bucket count, exceeding the CBI1 maximum " + CkfFormat.MAX_BUCKET_COUNT);
          return 0;
        }
        add(out, RelayConfigKey.EXPECTED_UNIQUE_BLOCKS, RelayConfigViolation.Reason.BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM,
            label(RelayConfigKey.EXPECTED_UNIQUE_BLOCKS) + " " + Long.toUnsignedString(expected) + " requires "
                + Long.toUnsignedString(needed) + " CKF buckets, exceeding the CBI1 maximum "
                + CkfFormat.MAX_BUCKET_COUNT);
        return 0;
      }
    }
  }
}
