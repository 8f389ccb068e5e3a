package dev.kvrelay.engine.consumer;

import dev.kvrelay.engine.wan.ModelKey;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.ReadinessUpdate;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the consumer task; reads go through the immutable {@link #snapshot()}. The
 * consumer's view of one relay's readiness stream (wan-grpc.md §5, §7.5): a new revision replaces the whole
 * view; the same revision must carry identical entries (a heartbeat, which refreshes freshness); a smaller
 * revision is an error (the owner reconnects, then calls {@link #reset()} and replaces from the first
 * snapshot). Received entries are validated one by one with {@link TopologyEntryValidator}: an entry with an
 * unknown state or role, or otherwise malformed, is quarantined under its key and never read as READY; an
 * entry whose key cannot be read is dropped (counted); a key listed twice is quarantined (fail closed). An
 * error changes nothing.
 */
final class ReadinessView {

  /** Immutable: what an accepted snapshot did. */
  public enum Outcome {
    /** A new revision replaced the view. */
    REPLACED,
    /** The same revision with the same entries: freshness was refreshed. */
    HEARTBEAT
  }

  private boolean hasRevision;
  private long revision;
  private List<TopologyEntry> lastEntries = List.of();
  private Map<ModelKey, String> lastQuarantine = Map.of();
  private int lastDropped;
  private ReadinessSnapshot published = ReadinessSnapshot.EMPTY;
  private long quarantinedTotal;
  private long droppedTotal;

  /** An empty view. */
  public ReadinessView() {}

  /** Applies an in-process snapshot (entries already typed) received at {@code nowUs}. */
  public Outcome apply(TopologySnapshot snapshot, long nowUs) throws StreamOrderException {
    return apply(ReadinessUpdate.of(Objects.requireNonNull(snapshot, "snapshot")), nowUs);
  }

  /** Applies a readiness message whose entries were validated one by one (quarantines included) at {@code nowUs}. */
  public Outcome apply(ReadinessUpdate update, long nowUs) throws StreamOrderException {
    Objects.requireNonNull(update, "update");
    return applyValidated(update.revision(), update.entries(), update.quarantined(), update.dropped(), nowUs);
  }

  /**
   * Applies a received {@code ServingReadinessUpdate} (revision and raw entries) at {@code nowUs}, validating
   * and quarantining each entry on its own ({@link ReadinessUpdate#fromWire}).
   */
  public Outcome applyWire(long revision, List<TopologyEntryValidator.@Nullable EntryWire> entries, long nowUs)
      throws StreamOrderException {
    return apply(ReadinessUpdate.fromWire(revision, entries), nowUs);
  }

  private Outcome applyValidated(long newRevision, List<TopologyEntry> valid, Map<ModelKey, String> quarantine,
      int dropped, long nowUs) throws StreamOrderException {
    if (hasRevision) {
      int cmp = Long.compareUnsigned(newRevision, revision);
      if (cmp < 0) {
        throw new StreamOrderException(StreamOrderException.Reason.REVISION_REGRESSED,
            "readiness revision " + Long.toUnsignedString(newRevision) + " < " + Long.toUnsignedString(revision));
      }
      if (cmp == 0) {
        if (valid.equals(lastEntries) && quarantine.equals(lastQuarantine) && dropped == lastDropped) {
          published = new ReadinessSnapshot(revision, nowUs, published.entries(), published.quarantined());
          return Outcome.HEARTBEAT;
        }
        throw new StreamOrderException(StreamOrderException.Reason.REVISION_CONFLICT,
            "readiness revision " + Long.toUnsignedString(revision) + " repeated with different entries");
      }
    }
    Map<ModelKey, TopologyEntry> byKey = new HashMap<>();
    Map<ModelKey, String> quarantined = new LinkedHashMap<>(quarantine);
    for (TopologyEntry e : valid) {
      ModelKey key = new ModelKey(e.namespace(), e.canonicalModelId());
      if (quarantined.containsKey(key) || byKey.containsKey(key)) {
        byKey.remove(key);
        quarantined.merge(key, "key listed more than once", (a, b) -> a.contains(b) ? a : a + "; " + b);
      } else {
        byKey.put(key, e);
      }
    }
    hasRevision = true;
    revision = newRevision;
    lastEntries = List.copyOf(valid);
    lastQuarantine = Map.copyOf(quarantine);
    lastDropped = dropped;
    quarantinedTotal += quarantined.size();
    droppedTotal += dropped;
    // revision 0 cannot come from a relay (topology revisions start at 1); it would read as "none".
    published = new ReadinessSnapshot(newRevision, nowUs, byKey, quarantined);
    return Outcome.REPLACED;
  }

  /** Drops all state after a reconnect: the next snapshot is accepted whatever its revision. */
  public void reset() {
    hasRevision = false;
    revision = 0;
    lastEntries = List.of();
    lastQuarantine = Map.of();
    lastDropped = 0;
    published = ReadinessSnapshot.EMPTY;
  }

  /** The current immutable state. */
  public ReadinessSnapshot snapshot() {
    return published;
  }

  /** Entries quarantined by replacing revisions so far (heartbeats do not count again). */
  public long quarantinedTotal() {
    return quarantinedTotal;
  }

  /** Entries dropped because their key could not be read. */
  public long droppedTotal() {
    return droppedTotal;
  }
}
