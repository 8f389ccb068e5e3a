package dev.kvrelay.launcher.system;

/**
 * Immutable and thread-safe: a {@code DYN_SYSTEM_*} environment value the system server refuses; the message
 * names the variable, the rule and the value. Nothing was started.
 */
public final class SystemSettingsException extends Exception {
  private static final long serialVersionUID = 1L;

  /** The variable's name, e.g. {@code DYN_SYSTEM_PORT}. */
  private final String variable;

  SystemSettingsException(String variable, String message) {
    super(message);
    this.variable = variable;
  }

  /** The environment variable the message is about. */
  public String variable() {
    return variable;
  }
}
