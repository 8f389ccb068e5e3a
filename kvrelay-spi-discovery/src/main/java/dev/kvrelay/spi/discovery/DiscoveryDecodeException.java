package dev.kvrelay.spi.discovery;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one discovery entry (a key, a {@code DiscoveryInstance} JSON value, a
 * {@code spec.data} map entry) is malformed. The engine skips the entry with a warning and counts it; it
 * changes no state.
 */
public final class DiscoveryDecodeException extends DiscoveryException {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: what is wrong with the entry. */
  public enum Reason {
    /** The bytes are not JSON (see the cause, a {@code JsonException}). */
    INVALID_JSON,
    /** The {@code "type"} tag (or an enum tag such as a transport kind) names no known variant. */
    UNKNOWN_TYPE,
    /** A required field is absent or null. */
    MISSING_FIELD,
    /** A field has the wrong JSON type. */
    WRONG_TYPE,
    /** A field has the right type but a value outside its domain. */
    INVALID_VALUE,
    /** A discovery key or path does not have one of the §1.4 forms. */
    INVALID_PATH,
    /** The entry's key (or map) does not match the record its value decodes to. */
    KEY_MISMATCH
  }

  private final Reason reason;
  private final String field;
  private final String entry;
  private final String detail;

  /**
   * @param reason what is wrong
   * @param field dotted JSON path of the offending field (e.g. {@code card_json.runtime_config.taints}),
   *     or empty for the whole entry
   * @param message what is wrong, for operators
   */
  public DiscoveryDecodeException(Reason reason, String field, String message) {
    this(reason, field, "", message, null);
  }

  /**
   * @param reason what is wrong
   * @param field dotted JSON path of the offending field, or empty
   * @param entry where the entry came from (a storage key, {@code map/key} of {@code spec.data}), or empty
   * @param message what is wrong, for operators
   * @param cause the underlying failure, if any
   */
  public DiscoveryDecodeException(
      Reason reason, String field, String entry, String message, @Nullable Throwable cause) {
    super(Kind.MALFORMED_ENTRY, render(entry, field, message), cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.field = Objects.requireNonNull(field, "field");
    this.entry = Objects.requireNonNull(entry, "entry");
    this.detail = Objects.requireNonNull(message, "message");
  }

  private static String render(String entry, String field, String message) {
    String where = entry.isEmpty() ? field : field.isEmpty() ? entry : entry + " " + field;
    return where.isEmpty() ? message : where + ": " + message;
  }

  /** What is wrong. */
  public Reason reason() {
    return reason;
  }

  /** Dotted JSON path of the offending field, or empty. */
  public String field() {
    return field;
  }

  /** Where the entry came from, or empty. */
  public String entry() {
    return entry;
  }

  /** What is wrong, without the entry and field prefix. */
  public String detail() {
    return detail;
  }

  /** The same problem, located at {@code entry} (keeps an entry already set). */
  public DiscoveryDecodeException at(String entry) {
    if (!this.entry.isEmpty()) {
      return this;
    }
    return new DiscoveryDecodeException(reason, field, entry, detail, getCause());
  }

  /** The same problem with its field nested under {@code prefix} (e.g. {@code card_json}). */
  DiscoveryDecodeException under(String prefix) {
    String nested = field.isEmpty() ? prefix : prefix + "." + field;
    return new DiscoveryDecodeException(reason, nested, entry, detail, getCause());
  }
}
