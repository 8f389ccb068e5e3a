package dev.kvrelay.engine.wan;

import java.util.Objects;

/**
 * Immutable and thread-safe: a pool descriptor breaks an attach precondition ({@code producer.md} §2.8).
 * {@link #getMessage()} is the upstream error text.
 */
public final class DescriptorException extends Exception {
  private static final long serialVersionUID = 1L;

  private final DescriptorViolation violation;

  /**
   * @param violation which precondition failed
   * @param message the upstream error text
   */
  public DescriptorException(DescriptorViolation violation, String message) {
    super(message);
    this.violation = Objects.requireNonNull(violation, "violation");
  }

  /** Which precondition failed. */
  public DescriptorViolation violation() {
    return violation;
  }
}
