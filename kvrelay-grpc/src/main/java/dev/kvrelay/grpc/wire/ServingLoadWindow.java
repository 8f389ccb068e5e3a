package dev.kvrelay.grpc.wire;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import java.util.List;
import java.util.Objects;

/**
 * Immutable and thread-safe: a received, usable {@code ServingLoadUpdate} (wan-grpc.md §1.7): the envelope
 * and the window keys passed; entries that broke an entry rule are quarantined (unsupported) or rejected
 * (malformed) one by one and listed here instead of in {@link #update()}.
 *
 * @param relay field 2
 * @param update the window with its usable entries, in received order
 * @param excludedPools pool entries left out (index into the received {@code pools})
 * @param excludedModels model entries left out (index into the received {@code models})
 */
public record ServingLoadWindow(
    RelayIdentity relay, ServingLoadUpdate update, List<ExcludedEntry> excludedPools,
    List<ExcludedEntry> excludedModels) {

  /** Copies the lists. */
  public ServingLoadWindow {
    Objects.requireNonNull(relay, "relay");
    Objects.requireNonNull(update, "update");
    excludedPools = List.copyOf(excludedPools);
    excludedModels = List.copyOf(excludedModels);
  }
}
