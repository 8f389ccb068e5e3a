package dev.kvrelay.engine;

/**
 * Immutable and thread-safe: the engine could not start (for example the discovery watch was refused). The
 * message names what failed; the cause is the underlying error.
 */
public final class RelayEngineException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed
   * @param cause the underlying error
   */
  public RelayEngineException(String message, Throwable cause) {
    super(message, cause);
  }
}
