package dev.kvrelay.api.plugin;

/**
 * Immutable: no provider of the requested name is on the class path (or it is there but unavailable).
 * The message names the artifact to add when the name is a known one.
 */
public final class PluginNotFoundException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String kind;
  private final String requested;

  PluginNotFoundException(String kind, String requested, String message) {
    super(message);
    this.kind = kind;
    this.requested = requested;
  }

  /** What kind of plugin was looked up, e.g. {@code discovery backend}. */
  public String kind() {
    return kind;
  }

  /** The requested provider name. */
  public String requested() {
    return requested;
  }
}
