package dev.kvrelay.engine;

import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.hub.HubRegistry;
import dev.kvrelay.engine.recovery.RecoverySettings;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (each part keeps its own contract): the engine-wide parts every pool generation is built
 * from ({@link PoolGenerationWiring}): the hub registry, the actors' settings and scheduler, the recovery settings and
 * the relay-wide recovery query permits, the request plane (optional) and the event plane.
 *
 * @param recoveryPermits worker recovery queries in flight per relay (producer.md §3.1 {@code recovery_fetch_permit})
 */
record PoolParts(HubRegistry hubs, PoolActorConfig actorConfig, ActorScheduler actorScheduler,
    RecoverySettings recoverySettings, @Nullable RequestPlaneClient requestPlane, Semaphore recoveryPermits,
    EventPlane eventPlane) {}
