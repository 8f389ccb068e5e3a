package dev.kvrelay.grpc.wire;

import dev.kvrelay.engine.wire.TopologyEntryValidator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a received {@code ServingReadinessUpdate}, unvalidated: check
 * {@link #envelope()} first, then hand {@code revision} and {@code entries} to
 * {@code ReadinessView.applyWire}, which validates and quarantines each entry on its own.
 *
 * @param envelope fields 1, 2 and 127
 * @param revision field 3 (unsigned)
 * @param entries field 4, raw (an unmodifiable copy)
 */
public record ReadinessWire(
    WireEnvelope envelope, long revision, List<TopologyEntryValidator.@Nullable EntryWire> entries) {

  /** Copies the entries. */
  public ReadinessWire {
    Objects.requireNonNull(envelope, "envelope");
    entries = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(entries));
  }
}
