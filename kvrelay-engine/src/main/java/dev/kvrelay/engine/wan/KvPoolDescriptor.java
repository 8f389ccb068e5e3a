package dev.kvrelay.engine.wan;


import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.WorkerRole;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one pool generation as the catalog lists it (wire {@code KvPoolDescriptor},
 * {@code wan-grpc.md} §1.5). The {@link #producer()} is the subscription key; endpoint, registrations, query
 * semantics and roles are metadata that may change without a new key.
 *
 * <p>Producers build descriptors with {@link #of}, which normalises and checks the attach preconditions of
 * {@code producer.md} §2.8 and reports a typed {@link DescriptorException}. The canonical constructor is the
 * trusted path (e.g. for a consumer's already wire-validated values): it keeps the registration order given.
 *
 * @param producer the frozen subscription key
 * @param servingEndpoint the Dynamo endpoint serving the pool
 * @param registrations the models the pool serves (an unmodifiable copy)
 * @param querySemantics how consumers hash requests for this pool
 * @param poolRoles the declared worker roles, non-empty, strictly ascending (an unmodifiable copy)
 */
public record KvPoolDescriptor(
    ProducerIdentity producer,
    DynamoEndpointId servingEndpoint,
    List<ModelRegistration> registrations,
    KvQuerySemantics querySemantics,
    List<WorkerRole> poolRoles) {

  /**
   * Trusted constructor.
   *
   * @throws IllegalArgumentException if {@code poolRoles} is empty or not strictly ascending
   */
  public KvPoolDescriptor {
    Objects.requireNonNull(producer, "producer");
    Objects.requireNonNull(servingEndpoint, "servingEndpoint");
    Objects.requireNonNull(querySemantics, "querySemantics");
    registrations = List.copyOf(registrations);
    poolRoles = List.copyOf(poolRoles);
    if (poolRoles.isEmpty()) {
      throw new IllegalArgumentException("pool requires at least one declared worker role");
    }
    for (int i = 1; i < poolRoles.size(); i++) {
      if (poolRoles.get(i - 1).compareTo(poolRoles.get(i)) >= 0) {
        throw new IllegalArgumentException("pool roles must be unique and sorted: " + poolRoles);
      }
    }
  }

  /**
   * Builds a producer descriptor ({@code producer.md} §4, §2.8): aliases normalised (own canonical id removed,
   * deduplicated, sorted), registrations sorted, roles sorted. Preconditions, checked in this order: at least
   * one registration; no canonical model twice (conflicting targets, else duplicate); no alias equal to a
   * canonical model of the pool; each alias owned by one model; roles non-empty and unique.
   *
   * @param registrations registrations as discovered; aliases need not be normalised
   * @param roles the declared roles, in any order
   * @throws DescriptorException the first broken precondition, with the upstream message
   */
  public static KvPoolDescriptor of(
      ProducerIdentity producer,
      DynamoEndpointId servingEndpoint,
      List<ModelRegistration> registrations,
      KvQuerySemantics querySemantics,
      List<WorkerRole> roles)
      throws DescriptorException {
    Objects.requireNonNull(producer, "producer");
    List<ModelRegistration> normalized = normalizedRegistrations(producer.poolId(), registrations);
    List<WorkerRole> sortedRoles = sortedUniqueRoles(roles);
    return new KvPoolDescriptor(producer, servingEndpoint, normalized, querySemantics, sortedRoles);
  }

  /** Shorthand for {@code producer().poolId()}. */
  public KvPoolId poolId() {
    return producer.poolId();
  }

  /** Shorthand for {@code producer().layoutGeneration()} (unsigned). */
  public long layoutGeneration() {
    return producer.layoutGeneration();
  }

  /**
   * The same pool generation with other registrations (a registration change keeps the key; §2.7).
   *
   * @throws DescriptorException as {@link #of}
   */
  public KvPoolDescriptor withRegistrations(List<ModelRegistration> newRegistrations) throws DescriptorException {
    return new KvPoolDescriptor(
        producer, servingEndpoint, normalizedRegistrations(poolId(), newRegistrations), querySemantics, poolRoles);
  }

  /**
   * The same pool generation with other roles (a role change keeps the key; §2.7).
   *
   * @throws DescriptorException as {@link #of}
   */
  public KvPoolDescriptor withRoles(List<WorkerRole> newRoles) throws DescriptorException {
    return new KvPoolDescriptor(producer, servingEndpoint, registrations, querySemantics, sortedUniqueRoles(newRoles));
  }

  private static List<ModelRegistration> normalizedRegistrations(KvPoolId pool, List<ModelRegistration> registrations)
      throws DescriptorException {
    if (registrations.isEmpty()) {
      throw new DescriptorException(
          DescriptorViolation.NO_REGISTRATIONS, "pool " + pool + " requires at least one canonical model binding");
    }
    List<ModelRegistration> normalized = new ArrayList<>(registrations.size());
    for (ModelRegistration registration : registrations) {
      normalized.add(ModelRegistration.normalized(
          registration.canonicalModelId(), registration.target(), registration.aliases()));
    }
    Map<String, ModelTarget> models = new HashMap<>();
    for (ModelRegistration registration : normalized) {
      String model = registration.canonicalModelId();
      ModelTarget previous = models.putIfAbsent(model, registration.target());
      if (previous != null) {
        if (!previous.equals(registration.target())) {
          throw new DescriptorException(DescriptorViolation.CONFLICTING_TARGETS,
              "canonical model " + model + " resolves to conflicting targets in the same pool");
        }
        throw new DescriptorException(
            DescriptorViolation.DUPLICATE_CANONICAL_MODEL, "duplicate canonical model registration " + model);
      }
    }
    Map<String, String> aliasOwners = new HashMap<>();
    for (ModelRegistration registration : normalized) {
      for (String alias : registration.aliases()) {
        if (models.containsKey(alias)) {
          throw new DescriptorException(DescriptorViolation.ALIAS_IS_CANONICAL_MODEL,
              "model alias " + alias + " conflicts with canonical model " + alias + " in the same pool");
        }
        String owner = aliasOwners.putIfAbsent(alias, registration.canonicalModelId());
        if (owner != null && !owner.equals(registration.canonicalModelId())) {
          throw new DescriptorException(DescriptorViolation.ALIAS_CLAIMED_TWICE, "model alias " + alias
              + " is claimed by both " + owner + " and " + registration.canonicalModelId() + " in the same pool");
        }
      }
    }
    normalized.sort(null);
    return normalized;
  }

  private static List<WorkerRole> sortedUniqueRoles(List<WorkerRole> roles) throws DescriptorException {
    if (roles.isEmpty()) {
      throw new DescriptorException(
          DescriptorViolation.NO_ROLES, "pool requires at least one declared worker role");
    }
    EnumSet<WorkerRole> unique = EnumSet.noneOf(WorkerRole.class);
    for (WorkerRole role : roles) {
      if (!unique.add(Objects.requireNonNull(role, "role"))) {
        throw new DescriptorException(
            DescriptorViolation.REPEATED_ROLE, "pool repeats declared worker role " + role.text());
      }
    }
    return List.copyOf(unique);
  }
}
