package dev.kvrelay.api.json;

import java.util.Objects;

/**
 * Immutable and thread-safe: a JSON document was malformed, exceeded a limit, or a number did not fit the
 * requested type. Carries a {@link Reason} and the offset at which the problem was found.
 */
public final class JsonException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why the input was rejected. */
  public enum Reason {
    /** A character that cannot start or continue the expected token. */
    SYNTAX,
    /** The input ended inside a value. */
    UNEXPECTED_END,
    /** Non-whitespace after the top-level value. */
    TRAILING_CONTENT,
    /** An object repeats a member name. */
    DUPLICATE_KEY,
    /** A bad backslash escape in a string. */
    INVALID_ESCAPE,
    /** An unescaped control character (U+0000..U+001F) in a string. */
    CONTROL_CHARACTER,
    /** An unpaired UTF-16 surrogate, raw or escaped. */
    UNPAIRED_SURROGATE,
    /** Byte input that is not valid UTF-8. */
    INVALID_UTF8,
    /** A number that breaks the RFC 8259 grammar. */
    INVALID_NUMBER,
    /** Arrays and objects nested deeper than the limit. */
    DEPTH_LIMIT,
    /** The input is longer than the limit. */
    SIZE_LIMIT,
    /** A typed accessor wanted an integer but the number has a fraction, exponent or (unsigned) sign. */
    NOT_AN_INTEGER,
    /** A typed accessor's range does not hold the number. */
    NUMBER_OUT_OF_RANGE
  }

  private final Reason reason;
  private final long offset;

  private JsonException(Reason reason, long offset, String message) {
    super(offset >= 0 ? message + " (at offset " + offset + ")" : message);
    this.reason = reason;
    this.offset = offset;
  }

  static JsonException of(Reason reason, long offset, String message) {
    return new JsonException(Objects.requireNonNull(reason, "reason"), offset, message);
  }

  /** Why the input was rejected. */
  public Reason reason() {
    return reason;
  }

  /**
   * Where: the UTF-16 char index into the text ({@link Reason#INVALID_UTF8} and {@link Reason#SIZE_LIMIT}
   * of byte input: the byte index), or -1 for a typed-accessor failure, which has no position.
   */
  public long offset() {
    return offset;
  }
}
