package dev.kvrelay.engine;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Immutable and thread-safe: a {@link RelayEngineConfig} was rejected; carries every violation found,
 * in a stable order (setting declaration order, then check order).
 */
public final class RelayConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Not serialized: the violations are reflected in the message. */
  @SuppressWarnings("serial")
  private final List<RelayConfigViolation> violations;

  /**
   * A rejection carrying {@code violations} (at least one).
   *
   * @throws IllegalArgumentException if {@code violations} is empty
   */
  public RelayConfigException(List<RelayConfigViolation> violations) {
    super(message(violations));
    this.violations = List.copyOf(violations);
  }

  private static String message(List<RelayConfigViolation> violations) {
    if (violations.isEmpty()) {
      throw new IllegalArgumentException("a configuration rejection needs at least one violation");
    }
    return violations.stream().map(RelayConfigViolation::message).collect(Collectors.joining("; "));
  }

  /** Every violation, in a stable order. */
  public List<RelayConfigViolation> violations() {
    return violations;
  }

  /** True if some violation is about {@code key}. */
  public boolean concerns(RelayConfigKey key) {
    return violations.stream().anyMatch(v -> v.key() == key);
  }
}
