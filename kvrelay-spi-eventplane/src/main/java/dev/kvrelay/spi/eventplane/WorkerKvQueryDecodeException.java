package dev.kvrelay.spi.eventplane;

import org.jspecify.annotations.Nullable;

/**
 * Immutable: a worker KV query request or response (JSON, runtime-inputs.md §6.2) could not be decoded.
 * The {@link Reason} names the class of defect and {@link #field()} the path where it was found.
 */
public final class WorkerKvQueryDecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: the class of defect. */
  public enum Reason {
    /** The text is not JSON (syntax, encoding, limits, duplicate member names); the cause is the JSON error. */
    MALFORMED_JSON,
    /** A value has a JSON type the field does not accept. */
    WRONG_TYPE,
    /** A required field is absent. */
    MISSING_FIELD,
    /** An enum variant is unknown or unsupported, or a variant object does not have exactly one member. */
    BAD_VARIANT,
    /** A number does not fit the field (fraction, negative or above 2^64 − 1 for u64, above 2^32 − 1 for u32). */
    OUT_OF_RANGE
  }

  private final Reason reason;
  private final String field;

  WorkerKvQueryDecodeException(Reason reason, String field, String detail, @Nullable Throwable cause) {
    super(reason + " at " + (field.isEmpty() ? "<root>" : field) + ": " + detail, cause);
    this.reason = reason;
    this.field = field;
  }

  /** The class of defect. */
  public Reason reason() {
    return reason;
  }

  /** Where the defect was found, e.g. {@code Events.events.event.data.stored.blocks.tokens_hash}; empty for the root. */
  public String field() {
    return field;
  }
}
