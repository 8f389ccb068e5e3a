package dev.kvrelay.engine.wire;

import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wan.ModelKey;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one {@code ServingReadinessUpdate} as a consumer applies it (wan-grpc.md §5, §7.5):
 * the entries that passed {@link TopologyEntryValidator}, and the ones that did not, each quarantined on its own
 * under its model key (an unknown state or role from a newer contract, or a malformed entry) so that the rest of
 * the message is still used, or dropped (counted) when not even its key can be read. A quarantined entry is never
 * read as READY.
 *
 * @param revision the topology revision (unsigned)
 * @param entries the valid entries, in message order
 * @param quarantined why each quarantined key was refused, in message order
 * @param dropped entries whose key could not be read
 */
public record ReadinessUpdate(
    long revision, List<TopologyEntry> entries, Map<ModelKey, String> quarantined, int dropped) {

  /** Copies the collections. */
  public ReadinessUpdate {
    entries = List.copyOf(entries);
    quarantined = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(quarantined));
    if (dropped < 0) {
      throw new IllegalArgumentException("dropped " + dropped + " < 0");
    }
  }

  /** An in-process snapshot: its entries are typed, so nothing is quarantined or dropped. */
  public static ReadinessUpdate of(TopologySnapshot snapshot) {
    return new ReadinessUpdate(snapshot.revision(), snapshot.entries(), Map.of(), 0);
  }

  /**
   * Validates received entries one by one (the one readiness validator, shared by every consumer path): a failing
   * entry is quarantined under its key with the failure's kind, field and detail, or dropped when its key is
   * unreadable; the others are kept.
   */
  public static ReadinessUpdate fromWire(long revision, List<TopologyEntryValidator.@Nullable EntryWire> entries) {
    Objects.requireNonNull(entries, "entries");
    List<TopologyEntry> valid = new ArrayList<>(entries.size());
    Map<ModelKey, String> quarantine = new LinkedHashMap<>();
    int dropped = 0;
    for (TopologyEntryValidator.@Nullable EntryWire wire : entries) {
      try {
        valid.add(TopologyEntryValidator.validate(wire));
      } catch (WireValidationException e) {
        ModelKey key = keyOf(wire);
        if (key == null) {
          dropped++;
        } else {
          quarantine.merge(key, e.kind() + " " + e.field() + ": " + e.detail(), (a, b) -> a + "; " + b);
        }
      }
    }
    return new ReadinessUpdate(revision, valid, quarantine, dropped);
  }

  private static @Nullable ModelKey keyOf(TopologyEntryValidator.@Nullable EntryWire wire) {
    if (wire == null) {
      return null;
    }
    try {
      return new ModelKey(WireText.check("namespace", wire.namespace()),
          WireText.check("canonical_model_id", wire.canonicalModelId()));
    } catch (WireValidationException e) {
      return null;
    }
  }
}
