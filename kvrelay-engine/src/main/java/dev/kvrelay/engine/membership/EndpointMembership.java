package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the projection of one serving endpoint's model cards ({@code producer.md}
 * §2.2): domain, registrations, roles, per-worker runtime configs and topology, adapters, conflicts and
 * the membership generation.
 *
 * @param endpoint the serving endpoint
 * @param domain the single resolved indexer domain, or {@code null} if unknown or ambiguous
 * @param registrations canonical registrations, sorted ({@link ModelRegistration} order)
 * @param models registration names, sorted (code-point order), distinct
 * @param aliases union of registration aliases, sorted, distinct
 * @param roles declared roles of the workers, in {@link WorkerRole} order (legacy for cards without one)
 * @param runtimeConfigs worker id → runtime config, unsigned id order
 * @param workerTopology worker id → readiness-unit identity, unsigned id order
 * @param adapters served adapter name → adapter membership, code-point order
 * @param conflicts conflicts, sorted by debug text, distinct
 * @param generation the membership generation (≥ 1)
 */
public record EndpointMembership(
    DynamoEndpointId endpoint,
    @Nullable EndpointDomain domain,
    List<ModelRegistration> registrations,
    List<String> models,
    List<String> aliases,
    List<WorkerRole> roles,
    SortedMap<Long, RuntimeConfig> runtimeConfigs,
    SortedMap<Long, WorkerTopology> workerTopology,
    SortedMap<String, AdapterMembership> adapters,
    List<MembershipConflict> conflicts,
    long generation) {

  /** Copies every collection (unmodifiable; maps re-sorted in their documented order). */
  public EndpointMembership {
    registrations = List.copyOf(registrations);
    models = List.copyOf(models);
    aliases = List.copyOf(aliases);
    roles = List.copyOf(roles);
    runtimeConfigs = AdapterMembership.unsignedCopy(runtimeConfigs);
    workerTopology = AdapterMembership.unsignedCopy(workerTopology);
    TreeMap<String, AdapterMembership> a = new TreeMap<>(WireText.CODE_POINT_ORDER);
    a.putAll(adapters);
    adapters = Collections.unmodifiableSortedMap(a);
    conflicts = List.copyOf(conflicts);
  }

  /**
   * {@code is_materializable()}: a domain, at least one registration, and no conflict whose scope blocks
   * the pool ({@link ConflictScope#POOL_MATERIALIZATION} or {@link ConflictScope#SERVING_TOPOLOGY}).
   */
  public boolean isMaterializable() {
    return domain != null && !registrations.isEmpty() && !hasPoolBlockingConflict();
  }

  /** True if a conflict of scope PoolMaterialization or ServingTopology is present. */
  public boolean hasPoolBlockingConflict() {
    for (MembershipConflict c : conflicts) {
      if (c.scope().blocksPool()) {
        return true;
      }
    }
    return false;
  }

  /**
   * True if the endpoint stays a topology member (§2.3 decision (b): only a ServingTopology conflict
   * removes it).
   */
  public boolean isTopologyMember() {
    for (MembershipConflict c : conflicts) {
      if (c.scope().removesTopologyMember()) {
        return false;
      }
    }
    return true;
  }

  /** The pool this endpoint would materialize in {@code dcId}, if it has a domain. */
  public Optional<KvPoolId> poolId(DcId dcId) {
    return domain == null ? Optional.empty() : Optional.of(new KvPoolId(domain.id(), dcId));
  }

  /** This membership with another generation. */
  public EndpointMembership withGeneration(long newGeneration) {
    return new EndpointMembership(endpoint, domain, registrations, models, aliases, roles, runtimeConfigs,
        workerTopology, adapters, conflicts, newGeneration);
  }

  /** True if {@code other} equals this membership in every field except the generation. */
  public boolean equalsIgnoringGeneration(EndpointMembership other) {
    return withGeneration(0).equals(other.withGeneration(0));
  }

  /** This membership with more conflicts (re-sorted, deduplicated). */
  EndpointMembership withConflicts(List<MembershipConflict> more) {
    return new EndpointMembership(endpoint, domain, registrations, models, aliases, roles, runtimeConfigs,
        workerTopology, adapters, MembershipProjector.sortedDistinct(conflicts, more), generation);
  }

}
