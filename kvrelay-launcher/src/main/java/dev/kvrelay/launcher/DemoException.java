package dev.kvrelay.launcher;

/**
 * Immutable and thread-safe: the embedded demo could not run to its self-check (a part refused to start, or a
 * relay or the router did not come up before the deadline). A run that completes but finds wrong answers is not
 * an exception; it is a failed {@link DemoOutcome}.
 */
final class DemoException extends Exception {
  private static final long serialVersionUID = 1L;

  DemoException(String message) {
    super(message);
  }

  DemoException(String message, Throwable cause) {
    super(message, cause);
  }
}
