package dev.kvrelay.discovery.e2e;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.engine.wan.TopologySnapshot;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Immutable and thread-safe: the part of a relay's catalog and readiness that the discovery inputs determine, in
 * one namespace — comparable by value with what {@link ExpectedRelay} computes from those inputs. Identities the relay
 * mints (pool ids, producer incarnations, revisions) are left out; a member's pool link is kept as "links to the
 * catalog's pool of the same serving endpoint".
 *
 * @param pools the catalog's pools, sorted by serving endpoint
 * @param entries the readiness entries, sorted by model
 */
public record RelayView(List<PoolView> pools, List<EntryView> entries) {

  /** Immutable and thread-safe: one catalog pool: serving endpoint, roles, registrations rendered and sorted. */
  public record PoolView(String endpoint, List<WorkerRole> roles, List<String> registrations) {}

  /** Immutable and thread-safe: one readiness entry ({@code producer.md} §5). */
  public record EntryView(String model, ServingReadinessState state, List<WorkerRole> present,
      List<WorkerRole> missing, List<MemberView> members, List<WorkerRole> duplicates,
      List<AdapterView> adapters) {}

  /** Immutable and thread-safe: one entry member; {@code linked}: its pool id is the catalog pool of its endpoint. */
  public record MemberView(String endpoint, List<WorkerRole> roles, boolean linked) {}

  /** Immutable and thread-safe: one adapter's readiness under its base entry. */
  public record AdapterView(String served, ServingReadinessState state, List<WorkerRole> missing) {}

  /** Renders a registration as {@code served=base} or {@code served=lora(base,adapter)}. */
  static String render(ModelRegistration r) {
    ModelTarget t = r.target();
    String target = t instanceof ModelTarget.Lora l ? "lora(" + l.baseModel() + "," + l.adapter() + ")"
        : ((ModelTarget.Base) t).baseModel();
    return r.canonicalModelId() + "=" + target;
  }

  static String path(DynamoEndpointId e) {
    return e.namespace() + "/" + e.component() + "/" + e.endpoint();
  }

  /** What the relay publishes for {@code namespace}. */
  public static RelayView observe(CatalogSnapshot catalog, TopologySnapshot readiness, String namespace) {
    List<KvPoolDescriptor> mine = catalog.pools().stream()
        .filter(d -> d.servingEndpoint().namespace().equals(namespace)).toList();
    List<PoolView> pools = mine.stream()
        .map(d -> new PoolView(path(d.servingEndpoint()), d.poolRoles(),
            d.registrations().stream().map(RelayView::render).sorted().toList()))
        .sorted(Comparator.comparing(PoolView::endpoint)).toList();
    List<EntryView> entries = readiness.entries().stream().filter(e -> e.namespace().equals(namespace))
        .map(e -> entry(e, mine)).sorted(Comparator.comparing(EntryView::model)).toList();
    return new RelayView(pools, entries);
  }

  private static EntryView entry(TopologyEntry e, List<KvPoolDescriptor> pools) {
    List<MemberView> members = e.members().stream().map(m -> member(m, pools)).toList();
    List<AdapterView> adapters = e.adapters().stream().map(RelayView::adapter).toList();
    return new EntryView(e.canonicalModelId(), e.state(), e.presentRoles(), e.missingRoles(), members,
        e.duplicateRoleEndpoints(), adapters);
  }

  private static MemberView member(TopologyMember m, List<KvPoolDescriptor> pools) {
    Optional<KvPoolDescriptor> own = pools.stream().filter(d -> d.servingEndpoint().equals(m.endpoint())).findFirst();
    boolean linked = m.poolId().isPresent() && own.isPresent() && own.get().poolId().equals(m.poolId().get());
    if (m.poolId().isPresent() && !linked) {
      // a link to anything but the catalog's pool of the same endpoint is a fault of its own: keep it visible
      return new MemberView(path(m.endpoint()) + " (pool link " + m.poolId().get() + " is not its catalog pool)",
          m.roles(), false);
    }
    return new MemberView(path(m.endpoint()), m.roles(), linked);
  }

  private static AdapterView adapter(AdapterReadiness a) {
    return new AdapterView(a.canonicalModelId(), a.state(), a.missingRoles());
  }
}
