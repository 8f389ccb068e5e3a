package dev.kvrelay.spi.eventplane;

/**
 * Stateless and thread-safe: the event-plane topics the Relay reads and which payload each carries.
 */
public final class EventTopics {
  /** KV events: payload {@link RouterEvent} (runtime-inputs.md §5.2). */
  public static final String KV_EVENTS = "kv-events";
  /** Worker load: payload {@link ActiveLoad} (runtime-inputs.md §8). */
  public static final String KV_METRICS = "kv_metrics";

  private EventTopics() {}

  /**
   * True if messages on {@code topic} carry an {@link ActiveLoad} ({@code kv_metrics}); every other topic
   * (including the legacy {@code kv_events}) carries a {@link RouterEvent}.
   */
  public static boolean carriesLoad(String topic) {
    return KV_METRICS.equals(topic);
  }
}
