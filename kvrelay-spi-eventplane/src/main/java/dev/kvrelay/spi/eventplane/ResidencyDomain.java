package dev.kvrelay.spi.eventplane;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the {@code residency_domain} of a {@link RouterEvent}: {@code worker},
 * {@code cache_owner}, absent (legacy payloads), or anything else, kept verbatim as {@link Kind#UNKNOWN}
 * so the engine can count and log it ({@code UnsupportedResidencyDomain}, ckf-cbi1.md §3.4) instead of
 * rejecting the source.
 *
 * @param kind which of the four cases
 * @param raw for {@link Kind#UNKNOWN}: the string received, or {@code null} for an explicit nil; the
 *     wire name for the known kinds; {@code null} for {@link Kind#ABSENT}
 */
public record ResidencyDomain(Kind kind, @Nullable String raw) {

  /** Immutable and thread-safe: the residency cases. */
  public enum Kind {
    /** {@code worker}: the worker's own KV. */
    WORKER,
    /** {@code cache_owner}: a residency-aware cache owner's KV (never primary). */
    CACHE_OWNER,
    /** The field is omitted (legacy payloads): primary worker residency. */
    ABSENT,
    /** An explicit nil or an unknown name: the event is ignored. */
    UNKNOWN
  }

  /** {@code worker}. */
  public static final ResidencyDomain WORKER = new ResidencyDomain(Kind.WORKER, "worker");
  /** {@code cache_owner}. */
  public static final ResidencyDomain CACHE_OWNER = new ResidencyDomain(Kind.CACHE_OWNER, "cache_owner");
  /** Omitted. */
  public static final ResidencyDomain ABSENT = new ResidencyDomain(Kind.ABSENT, null);

  /**
   * Checks that {@code raw} agrees with {@code kind}.
   *
   * @throws IllegalArgumentException if a known kind carries another name, or an absent one a name
   */
  public ResidencyDomain {
    Objects.requireNonNull(kind, "kind");
    switch (kind) {
      case WORKER -> require("worker".equals(raw), "WORKER must carry raw \"worker\"");
      case CACHE_OWNER -> require("cache_owner".equals(raw), "CACHE_OWNER must carry raw \"cache_owner\"");
      case ABSENT -> require(raw == null, "ABSENT carries no raw value");
      case UNKNOWN -> require(!"worker".equals(raw) && !"cache_owner".equals(raw),
          "a known name is not UNKNOWN");
    }
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** An unknown domain: the received name, or {@code null} for an explicit nil. */
  public static ResidencyDomain unknown(@Nullable String raw) {
    return new ResidencyDomain(Kind.UNKNOWN, raw);
  }

  /** The domain named {@code name} on the wire ({@code null} = explicit nil). */
  public static ResidencyDomain fromWire(@Nullable String name) {
    if ("worker".equals(name)) {
      return WORKER;
    }
    if ("cache_owner".equals(name)) {
      return CACHE_OWNER;
    }
    return unknown(name);
  }

  /** True for {@code worker} and for an absent field: the domain of primary worker residency. */
  public boolean isWorkerResidency() {
    return kind == Kind.WORKER || kind == Kind.ABSENT;
  }
}
