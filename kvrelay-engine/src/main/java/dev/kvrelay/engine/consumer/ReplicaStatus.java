package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one pool replica of a {@link RelayConsumer}, as last published.
 *
 * @param source the name of the relay source listing the pool
 * @param pool the pool
 * @param producer the ProducerKey the replica subscribes with
 * @param lane its physical lane in the global view
 * @param state the replica's state
 * @param termination the reason of the last invalidation, or null
 * @param streamOpen true while a frame stream is open
 */
public record ReplicaStatus(
    String source,
    KvPoolId pool,
    ProducerIdentity producer,
    int lane,
    ReplicaState state,
    @Nullable ReplicaTermination termination,
    boolean streamOpen) {}
