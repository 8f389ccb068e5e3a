package dev.kvrelay.spi.discovery.sources;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a sources file could not be used ({@code producer.md} §8.2). The {@link Reason}
 * says why; the message is upstream's text for that reason plus, at most, where in the document the problem is
 * (a field position, never a field name or value: the file's contents are never echoed).
 */
public final class SourcesException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why the sources file was rejected, each with upstream's message. */
  public enum Reason {
    /** The file cannot be opened (missing, no permission). */
    UNAVAILABLE("sources file is unavailable"),
    /** The file was opened but reading it failed. */
    READ_FAILED("cannot read sources file"),
    /** Reading took longer than the read timeout (10 s). */
    READ_TIMEOUT("sources file read timed out"),
    /** The file has more than {@link SourcesDocument#MAX_BYTES} bytes. */
    SIZE_LIMIT("sources file size limit exceeded"),
    /** The bytes are not one well-formed JSON value (bad syntax, bad UTF-8, a repeated member name). */
    INVALID_JSON("invalid sources JSON"),
    /** The document, or a source, has a member other than the known ones (e.g. a {@code revision}). */
    UNKNOWN_FIELD("invalid sources JSON"),
    /** {@code version}, {@code sources} or a source's {@code namespace} is absent. */
    MISSING_FIELD("invalid sources JSON"),
    /** A value has the wrong JSON type (e.g. {@code version} not an unsigned 32-bit integer). */
    WRONG_TYPE("invalid sources JSON"),
    /** {@code version} is not 1. */
    UNSUPPORTED_VERSION("unsupported sources format version"),
    /** {@code connectionRevision} differs from the running Relay's configured one (or the configured one is invalid). */
    CONNECTION_REVISION_MISMATCH("sources connection revision does not match the running Relay"),
    /** More than {@link SourcesDocument#MAX_SOURCES} sources. */
    TOO_MANY_SOURCES("sources limit exceeded"),
    /** A namespace is empty, longer than 512 characters, or has a character outside {@code [A-Za-z0-9_-]}. */
    INVALID_NAMESPACE("invalid source namespace"),
    /** A namespace appears twice. */
    DUPLICATE_NAMESPACE("duplicate source namespace"),
    /** The document was valid but the {@link SourcesListener} refused it (this project's addition). */
    APPLY_FAILED("applying the sources failed");

    private final String message;

    Reason(String message) {
      this.message = message;
    }

    /** Upstream's message for this reason. */
    public String message() {
      return message;
    }
  }

  private final Reason reason;

  /**
   * @param reason why
   * @param where a position in the document such as {@code sources[2]}, or empty; never contents
   * @param cause the underlying failure, if any (kept for logs; its message is not part of this one)
   */
  public SourcesException(Reason reason, String where, @Nullable Throwable cause) {
    super(where.isEmpty() ? reason.message() : reason.message() + " (" + where + ")", cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** A problem at no particular position. */
  public SourcesException(Reason reason) {
    this(reason, "", null);
  }

  /** Why. */
  public Reason reason() {
    return reason;
  }
}
