package dev.kvrelay.engine.topology;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.membership.AdapterMembership;
import dev.kvrelay.engine.membership.ConflictScope;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (stateless): derives the sorted topology entries from endpoint memberships,
 * per-endpoint availability and catalog pool links (producer.md §5.1–§5.4).
 *
 * <p>Decisions followed: §2.3 (b) only {@link ConflictScope#SERVING_TOPOLOGY} removes a member; §5.2 (b)
 * units grouped by {@code (worker_type, model_type, needs)}; §5.3 (a) duplicate live units never gate
 * READY, and {@code duplicate_role_endpoints} is filtered to PREFILL/DECODE.
 */
final class Evaluator {
  private static final Comparator<DynamoEndpointId> BY_PATH =
      (a, b) -> WireText.compareCodePoints(a.path(), b.path());
  private static final Set<WorkerRole> DUPLICATE_WIRE_ROLES = EnumSet.of(WorkerRole.PREFILL, WorkerRole.DECODE);

  private Evaluator() {}

  /**
   * Evaluates the topology.
   *
   * @param endpoints the endpoint memberships (one per endpoint; a repeated endpoint is a caller bug)
   * @param availability per endpoint, the authoritative live instance ids; an endpoint without a key has
   *     no snapshot yet
   * @param poolLinks catalog claims; a {@code (endpoint, base model)} claimed with two different pools
   *     gets no link
   * @return entries sorted by {@code (namespace, canonical model)} in code-point order
   */
  public static List<TopologyEntry> evaluate(
      Collection<EndpointTopology> endpoints,
      Map<DynamoEndpointId, ? extends Set<Long>> availability,
      Collection<PoolLink> poolLinks) {
    Map<LinkKey, KvPoolId> links = links(poolLinks);
    Comparator<EntryKey> keyOrder = Comparator.comparing(EntryKey::namespace, WireText.CODE_POINT_ORDER)
        .thenComparing(EntryKey::model, WireText.CODE_POINT_ORDER);
    TreeMap<EntryKey, List<EndpointTopology>> groups = new TreeMap<>(keyOrder);
    Set<DynamoEndpointId> seen = new HashSet<>();
    for (EndpointTopology endpoint : endpoints) {
      if (!seen.add(endpoint.endpoint())) {
        throw new IllegalArgumentException("endpoint " + endpoint.endpoint() + " listed twice");
      }
      if (!endpoint.participates()) {
        continue;
      }
      for (String model : endpoint.baseModels()) {
        groups.computeIfAbsent(new EntryKey(endpoint.endpoint().namespace(), model), k -> new ArrayList<>())
            .add(endpoint);
      }
    }
    List<TopologyEntry> entries = new ArrayList<>(groups.size());
    for (Map.Entry<EntryKey, List<EndpointTopology>> group : groups.entrySet()) {
      entries.add(entry(group.getKey(), group.getValue(), availability, links));
    }
    return List.copyOf(entries);
  }

  private static TopologyEntry entry(
      EntryKey key,
      List<EndpointTopology> endpoints,
      Map<DynamoEndpointId, ? extends Set<Long>> availability,
      Map<LinkKey, KvPoolId> links) {
    List<EndpointTopology> sorted = new ArrayList<>(endpoints);
    sorted.sort((a, b) -> BY_PATH.compare(a.endpoint(), b.endpoint()));
    List<TopologyMember> members = new ArrayList<>(sorted.size());
    List<UnitEvaluation.LiveUnit> units = new ArrayList<>();
    boolean unknown = false;
    for (EndpointTopology endpoint : sorted) {
      members.add(new TopologyMember(
          endpoint.endpoint(),
          List.copyOf(endpoint.roles()),
          Optional.ofNullable(links.get(new LinkKey(endpoint.endpoint(), key.model())))));
      @Nullable Set<Long> live = availability.get(endpoint.endpoint());
      unknown |= live == null;
      addUnits(units, endpoint.units(), live);
    }
    UnitEvaluation base = UnitEvaluation.evaluate(units);
    ServingReadinessState state = unknown
        ? ServingReadinessState.UNKNOWN
        : base.ready() ? ServingReadinessState.READY : ServingReadinessState.UNAVAILABLE;
    EnumSet<WorkerRole> duplicates = EnumSet.copyOf(base.ambiguous());
    duplicates.retainAll(DUPLICATE_WIRE_ROLES);
    return new TopologyEntry(
        key.namespace(),
        key.model(),
        state,
        unknown ? List.of() : List.copyOf(base.present()),
        unknown ? List.of() : List.copyOf(base.missing()),
        members,
        List.copyOf(duplicates),
        base.legacy(),
        adapters(key.model(), sorted, availability, state));
  }

  private static List<AdapterReadiness> adapters(
      String baseModel,
      List<EndpointTopology> endpoints,
      Map<DynamoEndpointId, ? extends Set<Long>> availability,
      ServingReadinessState baseState) {
    TreeMap<String, List<UnitEvaluation.LiveUnit>> byName = new TreeMap<>(WireText.CODE_POINT_ORDER);
    for (EndpointTopology endpoint : endpoints) {
      @Nullable Set<Long> live = availability.get(endpoint.endpoint());
      for (Map.Entry<String, AdapterMembership> adapter : endpoint.adapters().entrySet()) {
        if (!adapter.getValue().baseModel().equals(baseModel)) {
          continue;
        }
        List<UnitEvaluation.LiveUnit> units = byName.computeIfAbsent(adapter.getKey(), k -> new ArrayList<>());
        addUnits(units, ReadinessUnit.group(endpoint.workers(), adapter.getValue().workers().keySet()), live);
      }
    }
    List<AdapterReadiness> out = new ArrayList<>(byName.size());
    for (Map.Entry<String, List<UnitEvaluation.LiveUnit>> e : byName.entrySet()) {
      UnitEvaluation eval = UnitEvaluation.evaluate(e.getValue());
      ServingReadinessState state = switch (baseState) {
        case UNKNOWN -> ServingReadinessState.UNKNOWN;
        case UNAVAILABLE -> ServingReadinessState.UNAVAILABLE;
        default -> eval.ready() ? ServingReadinessState.READY : ServingReadinessState.UNAVAILABLE;
      };
      out.add(new AdapterReadiness(
          e.getKey(), state, state == ServingReadinessState.UNKNOWN ? List.of() : List.copyOf(eval.missing())));
    }
    return out;
  }

  private static void addUnits(
      List<UnitEvaluation.LiveUnit> out, List<ReadinessUnit> units, @Nullable Set<Long> live) {
    for (ReadinessUnit unit : units) {
      out.add(new UnitEvaluation.LiveUnit(
          unit.workerType(), unit.needs(), live == null ? 0 : unit.liveCount(live)));
    }
  }

  private static Map<LinkKey, KvPoolId> links(Collection<PoolLink> poolLinks) {
    Map<LinkKey, KvPoolId> links = new HashMap<>();
    Set<LinkKey> ambiguous = new HashSet<>();
    for (PoolLink link : poolLinks) {
      LinkKey key = new LinkKey(link.servingEndpoint(), link.baseModel());
      KvPoolId previous = links.putIfAbsent(key, link.poolId());
      if (previous != null && !previous.equals(link.poolId())) {
        ambiguous.add(key);
      }
    }
    links.keySet().removeAll(ambiguous);
    return links;
  }

  /** Immutable and thread-safe: an entry's grouping key. */
  private record EntryKey(String namespace, String model) {}

  /** Immutable and thread-safe: a pool link's key. */
  private record LinkKey(DynamoEndpointId endpoint, String model) {}
}
