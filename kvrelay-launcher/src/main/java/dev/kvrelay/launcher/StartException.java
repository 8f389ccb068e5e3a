package dev.kvrelay.launcher;

/**
 * Immutable: the stock relay could not start (a missing or misconfigured plugin, an unreachable store, an address
 * that cannot be bound, an engine that refused to start); the launcher prints the message and exits 1
 * ({@code producer.md} §7.6: construction and start exceptions give status 1). Nothing started is left running.
 */
public final class StartException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A start failure described by {@code message}. */
  public StartException(String message) {
    super(message);
  }

  /** A start failure described by {@code message}, caused by {@code cause}. */
  public StartException(String message, Throwable cause) {
    super(message, cause);
  }
}
