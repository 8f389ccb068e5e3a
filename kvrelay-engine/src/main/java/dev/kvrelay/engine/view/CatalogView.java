package dev.kvrelay.engine.view;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the catalog stream's task. The consumer's view of one relay's pool catalog
 * (wan-grpc.md §7.3): each new revision replaces the whole catalog; a smaller revision or an equal revision
 * with other contents is an error; an equal revision with the same contents is a heartbeat. Each descriptor
 * is validated on its own; malformed or unsupported pools are quarantined. The view reports, per pool, what
 * the owner must do with the pool's replica and load state ({@link PoolChange}). A rejected update changes
 * nothing.
 */
public final class CatalogView {

  private @Nullable RelayIdentity relay;
  private boolean hasRevision;
  private long revision;
  private Set<PoolDescriptor> lastContents = Set.of();
  /** The usable pools of the applied revision, by pool id. */
  private Map<KvPoolId, PoolDescriptor> pools = Map.of();
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
    Set<PoolDescriptor> contents = new HashSet<>(update.pools());
    if (hasRevision) {
      int cmp = Long.compareUnsigned(update.revision(), revision);
      if (cmp < 0) {
        return new CatalogResult.Rejected(CatalogError.REVISION_REGRESSED,
            "revision " + Long.toUnsignedString(update.revision()) + " < " + Long.toUnsignedString(revision));
      }
      if (cmp == 0) {
        if (contents.size() == update.pools().size() && contents.equals(lastContents)
            && update.pools().size() == lastContents.size()) {
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

  private CatalogResult replace(RelayIdentity updateRelay, CatalogUpdate update, Set<PoolDescriptor> contents,
      long nowUs) {
    Map<KvPoolId, List<PoolDescriptor>> byPool = new LinkedHashMap<>();
    for (PoolDescriptor d : update.pools()) {
      ProducerIdentity p = d.producer();
      if (p != null) {
        byPool.computeIfAbsent(p.poolId(), k -> new ArrayList<>(1)).add(d);
      }
    }
    Map<KvPoolId, PoolDescriptor> next = new HashMap<>();
    List<PoolChange> changes = new ArrayList<>();
    for (Map.Entry<KvPoolId, List<PoolDescriptor>> e : byPool.entrySet()) {
      KvPoolId pool = e.getKey();
      PoolDescriptor old = pools.get(pool);
      ProducerIdentity previous = old == null ? null : old.producer();
      String problem = e.getValue().size() > 1 ? "pool listed " + e.getValue().size() + " times"
          : DescriptorCheck.problem(e.getValue().get(0));
      if (problem != null) {
        changes.add(new PoolChange(pool, PoolChange.Kind.QUARANTINED, previous, null, problem));
        continue;
      }
      PoolDescriptor d = e.getValue().get(0);
      ProducerIdentity current = Objects.requireNonNull(d.producer());
      next.put(pool, d);
      if (previous == null) {
        changes.add(new PoolChange(pool, PoolChange.Kind.ADDED, null, current, ""));
      } else if (!previous.equals(current)) {
        changes.add(new PoolChange(pool, PoolChange.Kind.RESUBSCRIBE, previous, current, ""));
      }
    }
    for (Map.Entry<KvPoolId, PoolDescriptor> e : new TreeMap<>(pools).entrySet()) {
      if (!byPool.containsKey(e.getKey())) {
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
    for (Map.Entry<KvPoolId, PoolDescriptor> e : new TreeMap<>(pools).entrySet()) {
      dropped.add(new PoolChange(e.getKey(), PoolChange.Kind.DROPPED, e.getValue().producer(), null, ""));
    }
    relay = null;
    hasRevision = false;
    revision = 0;
    lastContents = Set.of();
    pools = Map.of();
    return dropped;
  }

  /** The usable (validated, unambiguous) pools of the applied revision. */
  public Map<KvPoolId, PoolDescriptor> pools() {
    return Collections.unmodifiableMap(pools);
  }

  /** The usable descriptor of {@code pool}, if any. */
  public Optional<PoolDescriptor> descriptor(KvPoolId pool) {
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

  /** The time (µs) of the last applied update or heartbeat. */
  public long lastUpdateUs() {
    return lastUpdateUs;
  }
}
