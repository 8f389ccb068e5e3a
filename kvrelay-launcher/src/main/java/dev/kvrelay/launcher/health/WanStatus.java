package dev.kvrelay.launcher.health;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the WAN gRPC listener's part of the relay health object (producer §7.5
 * {@code wan_enabled}, {@code wan_serving}, {@code wan_bound_address}, {@code wan_last_error}).
 *
 * @param enabled whether a WAN listener was configured ({@code --bind} / {@code DYN_RELAY_BIND})
 * @param serving whether it is accepting calls now
 * @param boundAddress the bound {@code host:port}, or null before binding or when disabled
 * @param lastError the first terminal error of the listener, or null
 */
public record WanStatus(boolean enabled, boolean serving, @Nullable String boundAddress, @Nullable String lastError) {

  /** No WAN listener configured. */
  public static final WanStatus DISABLED = new WanStatus(false, false, null, null);

  /** No WAN listener configured ({@link #DISABLED}). */
  public static WanStatus disabled() {
    return DISABLED;
  }

  /** A WAN listener serving on {@code boundAddress} without error. */
  public static WanStatus serving(String boundAddress) {
    return new WanStatus(true, true, boundAddress, null);
  }
}
