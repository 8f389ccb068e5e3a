package dev.kvrelay.engine;

import java.util.Objects;

/**
 * Immutable and thread-safe: one rejected setting of a {@link RelayEngineConfig}.
 *
 * @param key the setting
 * @param reason why it was rejected
 * @param message the human-readable message; the exact upstream text where the spec gives one
 */
public record RelayConfigViolation(RelayConfigKey key, Reason reason, String message) {

  /** Immutable: why a setting was rejected. */
  public enum Reason {
    /** A required setting is missing or blank. */
    REQUIRED,
    /** The value is empty or only whitespace. */
    BLANK,
    /** The value has leading or trailing whitespace. */
    SURROUNDING_WHITESPACE,
    /** The text is not well-formed (e.g. a lone UTF-16 surrogate). */
    MALFORMED_TEXT,
    /** An environment value is not an integer. */
    NOT_AN_INTEGER,
    /** An environment value is not a boolean. */
    NOT_A_BOOLEAN,
    /** A numeric value is zero or negative. */
    NOT_POSITIVE,
    /** A numeric value is below the knob's minimum. */
    BELOW_MINIMUM,
    /** A numeric value is above the knob's maximum. */
    ABOVE_MAXIMUM,
    /** {@code now + duration} overflows. */
    DEADLINE_OVERFLOW,
    /** The expected unique blocks need more CKF buckets than CBI1 can carry. */
    BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM,
    /** A WAN-only knob is set without a bind address. */
    REQUIRES_BIND,
    /** The bind address is not a numeric socket address. */
    INVALID_BIND_ADDRESS,
    /** The discovery scope is inconsistent (both or neither of allowlist and watch-all, repeats, ...). */
    INVALID_SCOPE,
    /** An endpoint prefix is not inside the allowlisted namespaces. */
    PREFIX_OUTSIDE_NAMESPACES
  }

  /** Checks that no component is null. */
  public RelayConfigViolation {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
  }
}
