package dev.kvrelay.engine.wire;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (stateless): consumer-side validation of received catalog descriptors
 * ({@code wan-grpc.md} §1.8, §7.3). Each descriptor is validated on its own, fields in wire order (producer,
 * serving_endpoint, registrations, query_semantics, pool_roles); the first broken rule decides: unsupported ⇒
 * quarantined, malformed ⇒ rejected. Attach preconditions of the producer (e.g. alias conflicts) are not wire
 * rules and are not checked here (ambiguous lookups fail closed elsewhere).
 */
public final class CatalogValidator {

  private CatalogValidator() {}

  /**
   * Validates one descriptor.
   *
   * @throws WireValidationException the first broken wire rule
   */
  public static KvPoolDescriptor validate(@Nullable DescriptorWire wire) throws WireValidationException {
    if (wire == null) {
      throw WireValidationException.malformed("pools", "pool descriptor is missing");
    }
    ProducerIdentity producer = ProducerIdentity.fromWire(wire.producer());
    DescriptorWire.Endpoint endpoint = wire.servingEndpoint();
    if (endpoint == null) {
      throw WireValidationException.malformed("serving_endpoint", "serving endpoint is missing");
    }
    DynamoEndpointId servingEndpoint =
        DynamoEndpointId.fromWire(endpoint.namespace(), endpoint.component(), endpoint.endpoint());
    List<ModelRegistration> registrations = new ArrayList<>();
    List<DescriptorWire.@Nullable Registration> wireRegistrations = wire.registrations();
    if (wireRegistrations != null) {
      for (DescriptorWire.Registration registration : wireRegistrations) {
        if (registration == null) {
          throw WireValidationException.malformed("registrations", "registration is missing");
        }
        registrations.add(ModelRegistration.fromWire(registration.canonicalModelId(), registration.targetCase(),
            registration.baseModel(), registration.adapter(), registration.aliases()));
      }
    }
    DescriptorWire.QuerySemantics semantics = wire.querySemantics();
    if (semantics == null) {
      throw WireValidationException.malformed("query_semantics", "query semantics are missing");
    }
    KvQuerySemantics querySemantics = KvQuerySemantics.fromWire(semantics.kvBlockSize(), semantics.hashFormat());
    List<WorkerRole> roles = List.copyOf(WorkerRole.fromWireSet("pool_roles", wire.poolRoles()));
    return new KvPoolDescriptor(producer, servingEndpoint, registrations, querySemantics, roles);
  }

  /**
   * Validates every descriptor of a received snapshot on its own. A pool id listed more than once makes every
   * descriptor with that id rejected (malformed, field {@code pools}): the consumer cannot tell which is current.
   *
   * @param pools the received {@code KvPoolCatalogSnapshot.pools}; {@code null} is an empty list
   */
  public static CatalogValidation validateAll(@Nullable List<@Nullable DescriptorWire> pools) {
    if (pools == null) {
      return new CatalogValidation(List.of(), List.of());
    }
    List<@Nullable KvPoolDescriptor> valid = new ArrayList<>(pools.size());
    List<@Nullable ExcludedDescriptor> excluded = new ArrayList<>(pools.size());
    Map<KvPoolId, Integer> counts = new HashMap<>();
    for (int i = 0; i < pools.size(); i++) {
      DescriptorWire wire = pools.get(i);
      KvPoolId poolId = readablePoolId(wire);
      if (poolId != null) {
        counts.merge(poolId, 1, Integer::sum);
      }
      try {
        valid.add(validate(wire));
        excluded.add(null);
      } catch (WireValidationException e) {
        valid.add(null);
        excluded.add(new ExcludedDescriptor(i, poolId, e.kind(), e.field(), e.detail()));
      }
    }
    List<KvPoolDescriptor> usable = new ArrayList<>();
    List<ExcludedDescriptor> dropped = new ArrayList<>();
    for (int i = 0; i < pools.size(); i++) {
      KvPoolDescriptor descriptor = valid.get(i);
      ExcludedDescriptor exclusion = excluded.get(i);
      if (descriptor != null) {
        if (counts.getOrDefault(descriptor.poolId(), 0) > 1) {
          dropped.add(new ExcludedDescriptor(i, descriptor.poolId(), WireValidationException.Kind.MALFORMED,
              "pools", "pool " + descriptor.poolId() + " is listed more than once"));
        } else {
          usable.add(descriptor);
        }
      } else if (exclusion != null) {
        dropped.add(exclusion);
      }
    }
    return new CatalogValidation(usable, dropped);
  }

  private static @Nullable KvPoolId readablePoolId(@Nullable DescriptorWire wire) {
    if (wire == null || wire.producer() == null) {
      return null;
    }
    try {
      return KvPoolId.fromWire(wire.producer().poolId());
    } catch (WireValidationException e) {
      return null;
    }
  }
}
