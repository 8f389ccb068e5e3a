package dev.kvrelay.launcher.diagnostics;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the WAN listener's part of the health object (producer.md §7.5).
 *
 * @param enabled whether {@code --bind} / {@code DYN_RELAY_BIND} enabled the WAN server
 * @param serving whether it is bound and serving
 * @param boundAddress the bound {@code host:port}, or null
 * @param lastError the first terminal WAN error, or null
 */
public record WanStatus(boolean enabled, boolean serving, @Nullable String boundAddress, @Nullable String lastError) {
  private static final WanStatus DISABLED = new WanStatus(false, false, null, null);

  /** No WAN server configured. */
  public static WanStatus disabled() {
    return DISABLED;
  }

  /** A WAN server serving on {@code boundAddress}. */
  public static WanStatus serving(String boundAddress) {
    return new WanStatus(true, true, boundAddress, null);
  }
}
