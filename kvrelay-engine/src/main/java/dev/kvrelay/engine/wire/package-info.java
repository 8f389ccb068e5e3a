/**
 * The engine's transport plumbing, shared by the relay's publication side, the consumer, the gRPC transport and
 * the launcher's inspect command: the messages each RPC carries ({@link dev.kvrelay.engine.wire.CatalogUpdate},
 * {@link dev.kvrelay.engine.wire.PoolFrame} with its {@link dev.kvrelay.engine.wire.RelayEnvelope}, {@link
 * dev.kvrelay.engine.wire.ReadinessUpdate}, {@link dev.kvrelay.engine.wire.KvPoolLoadUpdate}, {@link
 * dev.kvrelay.engine.wire.ServingLoadUpdate} and its views), the pull stream that carries them ({@link
 * dev.kvrelay.engine.wire.RelayStream}), the streams of one relay ({@link dev.kvrelay.engine.wire.WireSource},
 * found behind a {@code RelaySource} by {@link dev.kvrelay.engine.wire.WireSources}), and the consumer-side
 * reading of received descriptors (wan-grpc.md §1.8, §7.3: {@link dev.kvrelay.engine.wire.CatalogValidator} turns
 * each received {@link dev.kvrelay.engine.wire.DescriptorWire} into a usable {@code KvPoolDescriptor} or an {@link
 * dev.kvrelay.engine.wire.ExcludedDescriptor} with its reason) and the readiness entry validator both sides share
 * ({@link dev.kvrelay.engine.wire.TopologyEntryValidator}).
 *
 * <p>Not API: the module exports this package only to {@code dev.kvrelay.grpc} and {@code dev.kvrelay.launcher}.
 * Depends on {@code dev.kvrelay.engine.wan} only; that package does not depend on this one.
 */
@NullMarked
package dev.kvrelay.engine.wire;

import org.jspecify.annotations.NullMarked;
