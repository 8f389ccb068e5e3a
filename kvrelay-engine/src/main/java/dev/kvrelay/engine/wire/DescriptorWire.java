package dev.kvrelay.engine.wire;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the unvalidated wire shape of a received {@code KvPoolDescriptor}
 * ({@code wan-grpc.md} §1.5), as a gRPC adapter maps it from protobuf. A {@code null} sub-message is absent.
 * Lists are taken as given (not copied); build a fresh instance per received message.
 *
 * @param producer {@code producer}
 * @param servingEndpoint {@code serving_endpoint}
 * @param registrations {@code registrations}
 * @param querySemantics {@code query_semantics}
 * @param poolRoles {@code pool_roles} enum numbers
 */
public record DescriptorWire(
    ProducerIdentity.@Nullable Wire producer,
    @Nullable Endpoint servingEndpoint,
    @Nullable List<@Nullable Registration> registrations,
    @Nullable QuerySemantics querySemantics,
    @Nullable List<@Nullable Integer> poolRoles) {

  /** Immutable and thread-safe: wire {@code DynamoEndpointId}. */
  public record Endpoint(@Nullable String namespace, @Nullable String component, @Nullable String endpoint) {}

  /**
   * Immutable and thread-safe: wire {@code ModelRegistration}.
   *
   * @param targetCase {@code null} if the {@code target} message is absent
   * @param baseModel {@code base.base_model} or {@code lora.base_model}, per {@code targetCase}
   * @param adapter {@code lora.adapter}
   */
  public record Registration(
      @Nullable String canonicalModelId,
      ModelTarget.@Nullable WireCase targetCase,
      @Nullable String baseModel,
      @Nullable String adapter,
      @Nullable List<@Nullable String> aliases) {}

  /**
   * Immutable and thread-safe: wire {@code KvQuerySemantics}.
   *
   * @param kvBlockSize the {@code uint32} bits
   * @param hashFormat the enum number
   */
  public record QuerySemantics(int kvBlockSize, int hashFormat) {}

  /** The wire shape of {@code d} (what the consumer-side {@link CatalogValidator#validate} reads back). */
  public static DescriptorWire of(KvPoolDescriptor d) {
    List<@Nullable Registration> wireRegistrations = new ArrayList<>(d.registrations().size());
    for (ModelRegistration registration : d.registrations()) {
      ModelTarget target = registration.target();
      String adapter = target instanceof ModelTarget.Lora lora ? lora.adapter() : null;
      wireRegistrations.add(new Registration(registration.canonicalModelId(),
          registration.targetCase(), target.baseModel(), adapter, new ArrayList<>(registration.aliases())));
    }
    List<@Nullable Integer> roles = new ArrayList<>(d.poolRoles().size());
    for (WorkerRole role : d.poolRoles()) {
      roles.add(role.wireValue());
    }
    DynamoEndpointId endpoint = d.servingEndpoint();
    return new DescriptorWire(
        d.producer().toWire(),
        new Endpoint(endpoint.namespace(), endpoint.component(), endpoint.endpoint()),
        wireRegistrations,
        new QuerySemantics(d.querySemantics().kvBlockSize(), d.querySemantics().hashFormat().wireValue()),
        roles);
  }
}
