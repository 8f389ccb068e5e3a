package dev.kvrelay.api;

import java.util.Objects;

/**
 * Immutable and thread-safe: a value broke the wire contract.
 *
 * <p>{@link Kind#MALFORMED} values are rejected outright ({@code INVALID_REQUEST} on the server);
 * {@link Kind#UNSUPPORTED} values may be valid in a newer protocol revision, so consumers quarantine
 * the enclosing entry ({@code UNSUPPORTED_FEATURE} on the server).
 */
public final class WireValidationException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * Immutable and thread-safe: whether the value is broken or merely from a revision this build does not
   * understand.
   */
  public enum Kind {
    /** The value can never be valid; reject it. */
    MALFORMED,
    /** The value may be valid in a newer revision; quarantine it. */
    UNSUPPORTED
  }

  private final Kind kind;
  private final String field;
  private final String detail;

  /**
   * @param kind malformed or unsupported
   * @param field dotted path of the offending field, e.g. {@code ckf_format.bucket_count}
   * @param message what is wrong, for humans
   */
  public WireValidationException(Kind kind, String field, String message) {
    super(field + ": " + message);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.field = Objects.requireNonNull(field, "field");
    this.detail = Objects.requireNonNull(message, "message");
  }

  /** Convenience factory for a malformed value. */
  public static WireValidationException malformed(String field, String message) {
    return new WireValidationException(Kind.MALFORMED, field, message);
  }

  /** Convenience factory for an unsupported value. */
  public static WireValidationException unsupported(String field, String message) {
    return new WireValidationException(Kind.UNSUPPORTED, field, message);
  }

  /** Malformed or unsupported. */
  public Kind kind() {
    return kind;
  }

  /** Dotted path of the offending field. */
  public String field() {
    return field;
  }

  /** The message without the field prefix, e.g. an exact upstream error text. */
  public String detail() {
    return detail;
  }

  /** True if the value is unsupported rather than malformed. */
  public boolean isUnsupported() {
    return kind == Kind.UNSUPPORTED;
  }
}
