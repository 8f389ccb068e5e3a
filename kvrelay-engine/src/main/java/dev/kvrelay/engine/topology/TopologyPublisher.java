package dev.kvrelay.engine.topology;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the host's topology task. Holds memberships, slot-owned availability and
 * pool links, and publishes a revisioned {@link TopologySnapshot} (producer.md §5.5).
 *
 * <ul>
 *   <li>Revision starts at 1 and advances (unsigned, saturating) only when the derived entry list changes.
 *   <li>Each endpoint's availability is owned by the slot incarnation that last claimed it; a newer claim
 *       clears the availability; a write from any other incarnation is dropped.
 *   <li>Membership updates keep the availability of the current slot.
 *   <li>{@link #stop()} publishes an empty topology; later writes are dropped.
 * </ul>
 *
 * <p>Every rejected write returns a typed {@link WriteOutcome} and changes nothing.
 */
public final class TopologyPublisher {
  private final Map<DynamoEndpointId, EndpointTopology> memberships = new HashMap<>();
  private final Map<DynamoEndpointId, Slot> slots = new HashMap<>();
  private List<PoolLink> poolLinks = List.of();
  private TopologySnapshot current = new TopologySnapshot(1, List.of());
  private boolean stopped;

  /** Creates an empty publisher at revision 1. */
  public TopologyPublisher() {}

  /** The current snapshot. */
  public TopologySnapshot snapshot() {
    return current;
  }

  /** Adds or replaces the membership of {@code endpoint.endpoint()}; the slot's availability is kept. */
  public WriteOutcome putMembership(EndpointTopology endpoint) {
    Objects.requireNonNull(endpoint, "endpoint");
    if (stopped) {
      return WriteOutcome.STOPPED;
    }
    memberships.put(endpoint.endpoint(), endpoint);
    return republish();
  }

  /** Removes an endpoint that left the view: its membership and its slot claim. */
  public WriteOutcome removeEndpoint(DynamoEndpointId endpoint) {
    if (stopped) {
      return WriteOutcome.STOPPED;
    }
    boolean removed = memberships.remove(endpoint) != null;
    removed |= slots.remove(endpoint) != null;
    return removed ? republish() : WriteOutcome.UNCHANGED;
  }

  /**
   * A slot claims {@code endpoint}. A newer incarnation (unsigned compare) takes ownership and clears the
   * availability; the owning incarnation re-claiming is a no-op; an older one is stale.
   */
  public WriteOutcome claim(DynamoEndpointId endpoint, long slotIncarnation) {
    Objects.requireNonNull(endpoint, "endpoint");
    if (stopped) {
      return WriteOutcome.STOPPED;
    }
    if (slotIncarnation == 0) {
      return WriteOutcome.INVALID_INCARNATION;
    }
    Slot slot = slots.get(endpoint);
    if (slot != null) {
      int c = Long.compareUnsigned(slotIncarnation, slot.incarnation());
      if (c == 0) {
        return WriteOutcome.UNCHANGED;
      }
      if (c < 0) {
        return WriteOutcome.STALE_INCARNATION;
      }
    }
    slots.put(endpoint, new Slot(slotIncarnation, null));
    return republish();
  }

  /**
   * The owning slot publishes the endpoint's live instance ids; {@link Optional#empty()} means "no
   * authoritative snapshot" (for example the instance watch failed).
   */
  public WriteOutcome publishAvailability(
      DynamoEndpointId endpoint, long slotIncarnation, Optional<? extends Set<Long>> liveInstanceIds) {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(liveInstanceIds, "liveInstanceIds");
    if (stopped) {
      return WriteOutcome.STOPPED;
    }
    if (slotIncarnation == 0) {
      return WriteOutcome.INVALID_INCARNATION;
    }
    Slot slot = slots.get(endpoint);
    if (slot == null) {
      return WriteOutcome.NOT_CLAIMED;
    }
    if (slot.incarnation() != slotIncarnation) {
      return WriteOutcome.STALE_INCARNATION;
    }
    slots.put(endpoint, new Slot(slotIncarnation, liveInstanceIds.map(Set::copyOf).orElse(null)));
    return republish();
  }

  /** Replaces the catalog's pool links. */
  public WriteOutcome replacePoolLinks(Collection<PoolLink> links) {
    if (stopped) {
      return WriteOutcome.STOPPED;
    }
    poolLinks = List.copyOf(links);
    return republish();
  }

  /** Host stop: publishes an empty topology and drops every later write. */
  public WriteOutcome stop() {
    if (stopped) {
      return WriteOutcome.STOPPED;
    }
    stopped = true;
    memberships.clear();
    slots.clear();
    poolLinks = List.of();
    return publish(List.of());
  }

  private WriteOutcome republish() {
    Map<DynamoEndpointId, Set<Long>> availability = new HashMap<>();
    for (Map.Entry<DynamoEndpointId, Slot> e : slots.entrySet()) {
      Set<Long> live = e.getValue().live();
      if (live != null) {
        availability.put(e.getKey(), live);
      }
    }
    return publish(Evaluator.evaluate(new ArrayList<>(memberships.values()), availability, poolLinks));
  }

  private WriteOutcome publish(List<TopologyEntry> entries) {
    if (entries.equals(current.entries())) {
      return WriteOutcome.UNCHANGED;
    }
    long next = current.revision() == -1L ? -1L : current.revision() + 1;
    current = new TopologySnapshot(next, entries);
    return WriteOutcome.CHANGED;
  }

  /** Immutable and thread-safe: a slot's claim and its availability ({@code null} = no snapshot). */
  private record Slot(long incarnation, @Nullable Set<Long> live) {}
}
