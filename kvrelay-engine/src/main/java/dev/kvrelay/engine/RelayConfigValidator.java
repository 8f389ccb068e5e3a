package dev.kvrelay.engine;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CkfSizing;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe (confined to one {@link RelayEngineConfig.Builder#build(long)} call, reading the builder's state
 * it was given): the validation rules of a {@link RelayEngineConfig} — DC id, discovery scope
 * ({@code producer.md} §7.1), bind address and every numeric knob against its {@link RelayConfigKey} bounds, the
 * timer deadline rule and the CKF bucket limit — each check adding its violations to the caller's list.
 *
 * <p>Messages name the environment variable ({@code DYN_RELAY_*:}) when the builder was filled by
 * {@link RelayEnvironment}, the configuration key otherwise.
 */
final class RelayConfigValidator {
  private final boolean fromEnvironment;
  private final Set<RelayConfigKey> assigned;
  private final Map<RelayConfigKey, Long> values;
  private final @Nullable String dcName;
  private final @Nullable List<String> namespaces;
  private final @Nullable Boolean watchAll;
  private final @Nullable List<String> endpointPrefixes;
  private final @Nullable String bind;

  /** Rules over the builder's state (the collections are read, never changed). */
  RelayConfigValidator(boolean fromEnvironment, Set<RelayConfigKey> assigned, Map<RelayConfigKey, Long> values,
      @Nullable String dcName, @Nullable List<String> namespaces, @Nullable Boolean watchAll,
      @Nullable List<String> endpointPrefixes, @Nullable String bind) {
    this.fromEnvironment = fromEnvironment;
    this.assigned = assigned;
    this.values = values;
    this.dcName = dcName;
    this.namespaces = namespaces;
    this.watchAll = watchAll;
    this.endpointPrefixes = endpointPrefixes;
    this.bind = bind;
  }

  private String label(RelayConfigKey key) {
    String env = key.envName();
    return fromEnvironment && env != null ? env + ":" : key.key();
  }

  private void add(List<RelayConfigViolation> out, RelayConfigKey key, RelayConfigViolation.Reason reason,
      String message) {
    out.add(new RelayConfigViolation(key, reason, message));
  }

  @Nullable DcId checkDcId(List<RelayConfigViolation> out) {
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

  @Nullable DiscoveryScope checkScope(List<RelayConfigViolation> out) {
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
      return all ? DiscoveryScope.watchAll(prefixes) : DiscoveryScope.namespaces(
          Objects.requireNonNull(namespaces, "not all without namespaces is reported above"), prefixes);
    } catch (DiscoveryException e) {
      add(out, RelayConfigKey.NAMESPACES, RelayConfigViolation.Reason.INVALID_SCOPE, String.valueOf(e.getMessage()));
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

  @Nullable BindAddress checkBind(List<RelayConfigViolation> out) {
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

  int checkKnobs(List<RelayConfigViolation> out, long nowMillis, boolean hasBind) {
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
