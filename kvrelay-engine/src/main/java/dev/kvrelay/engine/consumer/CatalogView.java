package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.CatalogValidation;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.ExcludedDescriptor;
import dev.kvrelay.engine.wire.RelayEnvelope;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the catalog stream's task. The consumer's view of one relay's pool catalog
 * (wan-grpc.md §7.3): each new revision replaces the whole catalog; a smaller revision or an equal revision
 * with other contents (compared by value, in any order) is an error; an equal revision with the same contents is
 * a heartbeat. Each descriptor is validated on its own by {@link CatalogValidator#validateAll}, the one consumer
 * validator of wan-grpc.md §1.8: a malformed or unsupported descriptor whose pool id can be read quarantines that
 * pool ({@link PoolChange.Kind#QUARANTINED}, with the validator's reason), one whose pool id cannot be read is
 * dropped, and a pool id listed more than once quarantines the pool (every copy is excluded). The view reports,
 * per pool, what the owner must do with the pool's replica and load state ({@link PoolChange}). A rejected
 * update changes nothing.
 */
final class CatalogView {

  private @Nullable RelayIdentity relay;
  private boolean hasRevision;
  private long revision;
  private SnapshotContents lastContents = SnapshotContents.EMPTY;
  /** The usable pools of the applied revision, by pool id. */
  private Map<KvPoolId, KvPoolDescriptor> pools = Map.of();
  private long lastUpdateUs;

  /** An empty view with no revision and no pinned relay. */
  public CatalogView() {}

  /** Applies one received update at time {@code nowUs}. */
  public CatalogResult apply(CatalogUpdate update, long nowUs) {
    Objects.requireNonNull(update, "update");
    RelayEnvelope.EnvelopeFault fault =
        RelayEnvelope.check(update.contractMarker(), update.protocolVersion(), update.relay());
    if (fault != null) {
      return new CatalogResult.Rejected(CatalogError.valueOf(fault.name()), fault.name());
    }
    RelayIdentity updateRelay = Objects.requireNonNull(update.relay());
    if (relay != null && !relay.equals(updateRelay)) {
      return new CatalogResult.Rejected(CatalogError.RELAY_CHANGED, relay + " -> " + updateRelay);
    }
    SnapshotContents contents = SnapshotContents.of(update.pools());
    if (hasRevision) {
      int cmp = Long.compareUnsigned(update.revision(), revision);
      if (cmp < 0) {
        return new CatalogResult.Rejected(CatalogError.REVISION_REGRESSED,
            "revision " + Long.toUnsignedString(update.revision()) + " < " + Long.toUnsignedString(revision));
      }
      if (cmp == 0) {
        if (contents.equals(lastContents)) {
          relay = updateRelay;
          lastUpdateUs = nowUs;
          return new CatalogResult.Heartbeat(revision);
        }
        return new CatalogResult.Rejected(CatalogError.REVISION_CONFLICT,
            "revision " + Long.toUnsignedString(revision) + " repeated with different contents");
      }
    }
    return replace(updateRelay, update, contents, nowUs);
  }

  private CatalogResult replace(RelayIdentity updateRelay, CatalogUpdate update, SnapshotContents contents,
      long nowUs) {
    List<DescriptorWire> received = update.pools();
    CatalogValidation validation = CatalogValidator.validateAll(received);
    // Every received index is either excluded or, in received order, the next usable descriptor.
    List<@Nullable ExcludedDescriptor> exclusionAt = new ArrayList<>(Collections.nCopies(received.size(), null));
    for (ExcludedDescriptor x : validation.excluded()) {
      exclusionAt.set(x.index(), x);
    }
    Map<KvPoolId, KvPoolDescriptor> next = new HashMap<>();
    Map<KvPoolId, List<String>> quarantined = new LinkedHashMap<>();
    List<KvPoolId> order = new ArrayList<>();
    Iterator<KvPoolDescriptor> usable = validation.usable().iterator();
    for (int i = 0; i < received.size(); i++) {
      ExcludedDescriptor x = exclusionAt.get(i);
      if (x == null) {
        KvPoolDescriptor d = usable.next();
        next.put(d.poolId(), d);
        order.add(d.poolId());
      } else if (x.poolId() != null) {
        // an unreadable pool id cannot be attributed to any pool: the descriptor is dropped
        List<String> reasons = quarantined.computeIfAbsent(x.poolId(), k -> {
          order.add(k);
          return new ArrayList<>(1);
        });
        String reason = x.kind() + " " + x.field() + ": " + x.reason();
        if (!reasons.contains(reason)) {
          reasons.add(reason);
        }
      }
    }
    List<PoolChange> changes = new ArrayList<>();
    for (KvPoolId pool : order) {
      KvPoolDescriptor old = pools.get(pool);
      ProducerIdentity previous = old == null ? null : old.producer();
      List<String> reasons = quarantined.get(pool);
      if (reasons != null) {
        changes.add(new PoolChange(pool, PoolChange.Kind.QUARANTINED, previous, null, String.join("; ", reasons)));
        continue;
      }
      ProducerIdentity current = Objects.requireNonNull(next.get(pool)).producer();
      if (previous == null) {
        changes.add(new PoolChange(pool, PoolChange.Kind.ADDED, null, current, ""));
      } else if (!previous.equals(current)) {
        changes.add(new PoolChange(pool, PoolChange.Kind.RESUBSCRIBE, previous, current, ""));
      }
    }
    for (Map.Entry<KvPoolId, KvPoolDescriptor> e : new TreeMap<>(pools).entrySet()) {
      if (!next.containsKey(e.getKey()) && !quarantined.containsKey(e.getKey())) {
        changes.add(new PoolChange(e.getKey(), PoolChange.Kind.DROPPED, e.getValue().producer(), null, ""));
      }
    }
    relay = updateRelay;
    hasRevision = true;
    revision = update.revision();
    lastContents = contents;
    pools = next;
    lastUpdateUs = nowUs;
    return new CatalogResult.Applied(revision, changes);
  }

  /**
   * Drops all state for a new connection epoch (e.g. after {@link CatalogError#RELAY_CHANGED} or a
   * reconnect): returns a {@link PoolChange.Kind#DROPPED} change for every usable pool, in pool order.
   */
  public List<PoolChange> reset() {
    List<PoolChange> dropped = new ArrayList<>();
    for (Map.Entry<KvPoolId, KvPoolDescriptor> e : new TreeMap<>(pools).entrySet()) {
      dropped.add(new PoolChange(e.getKey(), PoolChange.Kind.DROPPED, e.getValue().producer(), null, ""));
    }
    relay = null;
    hasRevision = false;
    revision = 0;
    lastContents = SnapshotContents.EMPTY;
    pools = Map.of();
    return dropped;
  }

  /** The usable (validated, unambiguous) pools of the applied revision. */
  public Map<KvPoolId, KvPoolDescriptor> pools() {
    return Collections.unmodifiableMap(pools);
  }

  /** The usable descriptor of {@code pool}, if any. */
  public Optional<KvPoolDescriptor> descriptor(KvPoolId pool) {
    return Optional.ofNullable(pools.get(pool));
  }

  /** The applied revision (unsigned), if any. */
  public Optional<Long> revision() {
    return hasRevision ? Optional.of(revision) : Optional.empty();
  }

  /** The pinned relay identity of the connection epoch, or null before the first update. */
  public @Nullable RelayIdentity relay() {
    return relay;
  }

  /**
   * The usable pools of the applied revision as one immutable value, in ascending pool order, or null before the
   * first applied update.
   */
  @Nullable CatalogSnapshot snapshot() {
    RelayIdentity r = relay;
    if (r == null || !hasRevision) {
      return null;
    }
    return new CatalogSnapshot(r, revision, List.copyOf(new TreeMap<>(pools).values()));
  }

    /** The time (µs) of the last applied update or heartbeat. */
  public long lastUpdateUs() {
    return lastUpdateUs;
  }
}
