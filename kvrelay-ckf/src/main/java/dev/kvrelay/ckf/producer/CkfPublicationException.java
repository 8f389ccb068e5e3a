package dev.kvrelay.ckf.producer;

/** Immutable and thread-safe refusal of a publication command, with a typed {@link FenceReason}. */
public final class CkfPublicationException extends Exception {
  private static final long serialVersionUID = 1L;

  private final FenceReason reason;

  CkfPublicationException(FenceReason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** Why the command was refused. */
  public FenceReason reason() {
    return reason;
  }
}
