package dev.kvrelay.engine.view;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.WorkerRole;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one received {@code KvPoolDescriptor} (wan-grpc.md §1.5) built from already
 * decoded api values; sub-messages may be absent ({@code null}) and are checked by the catalog view.
 *
 * @param producer the subscription key (field 1), null when absent
 * @param servingEndpoint metadata (field 2), null when absent
 * @param registrations field 3
 * @param querySemantics field 4, null when absent
 * @param poolRoles field 5 (decoded roles; must be non-empty)
 */
public record PoolDescriptor(
    @Nullable ProducerIdentity producer,
    @Nullable DynamoEndpointId servingEndpoint,
    List<ModelRegistration> registrations,
    @Nullable KvQuerySemantics querySemantics,
    Set<WorkerRole> poolRoles) {

  /** Copies the collections. */
  public PoolDescriptor {
    registrations = List.copyOf(registrations);
    poolRoles = Set.copyOf(poolRoles);
  }
}
