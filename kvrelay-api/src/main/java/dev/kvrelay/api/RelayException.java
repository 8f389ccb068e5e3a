package dev.kvrelay.api;

import java.util.Objects;

/**
 * Immutable and thread-safe: a typed relay failure: a refused subscription or a terminated stream, with the
 * {@link RelayErrorReason} a remote consumer would read from the trailer. The message is for people and is not
 * stable.
 */
public final class RelayException extends Exception {
  private static final long serialVersionUID = 1L;

  private final RelayErrorReason reason;

  /**
   * @param reason why
   * @param message what happened, for logs
   */
  public RelayException(RelayErrorReason reason, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Why the call or stream failed. */
  public RelayErrorReason reason() {
    return reason;
  }

  @Override
  @SuppressWarnings("OverrideThrowableToString") // getMessage() is the wire status description: no reason in it
  public String toString() {
    return "RelayException[" + reason + "]: " + getMessage();
  }
}
