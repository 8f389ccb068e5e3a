package dev.kvrelay.spi.eventplane;

/**
 * Immutable and thread-safe: where a KV block lives ({@code storage_tier}, snake_case on the wire). Only
 * {@link #DEVICE} is primary GPU KV; it is also the value when the field is absent.
 */
public enum StorageTier {
  /** GPU memory ({@code device}); the default. */
  DEVICE("device"),
  /** Pinned host memory ({@code host_pinned}). */
  HOST_PINNED("host_pinned"),
  /** Local disk ({@code disk}). */
  DISK("disk"),
  /** External storage ({@code external}). */
  EXTERNAL("external");

  private final String wireName;

  StorageTier(String wireName) {
    this.wireName = wireName;
  }

  /** The wire name, e.g. {@code host_pinned}. */
  public String wireName() {
    return wireName;
  }
}
