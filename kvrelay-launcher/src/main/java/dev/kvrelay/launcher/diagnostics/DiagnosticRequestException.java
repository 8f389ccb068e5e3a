package dev.kvrelay.launcher.diagnostics;

import java.util.Objects;

/**
 * Immutable and thread-safe: a diagnostic request the relay refuses. The TCP request server sends the message as
 * the stream's error prologue ({@code {"error":"<message>"}}, plugins-wire §1.4); nothing changes in the relay.
 */
public final class DiagnosticRequestException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Immutable and thread-safe: why a request was refused. */
  public enum Kind {
    /** The body is not a JSON object, or a field has the wrong type. */
    MALFORMED_REQUEST,
    /** A snapshot request without a non-empty {@code serving_endpoint} (upstream's ValueError text). */
    MISSING_SERVING_ENDPOINT,
    /** No active pool serves the named endpoint (upstream {@code UnknownEndpoint} text). */
    UNKNOWN_ENDPOINT,
    /** The named endpoint matches more than one active pool (a dotted name is not unique). */
    AMBIGUOUS_ENDPOINT,
    /** The pool's snapshot could not be read (stream refused, ended or too slow). */
    SNAPSHOT_UNAVAILABLE,
    /** The answer would exceed the request plane's message limit. */
    TOO_LARGE,
    /** Too many snapshot requests are in progress. */
    BUSY
  }

  private final Kind kind;

  /** A refusal of {@code kind} with {@code message}. */
  public DiagnosticRequestException(Kind kind, String message) {
    super(message);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** Why. */
  public Kind kind() {
    return kind;
  }
}
