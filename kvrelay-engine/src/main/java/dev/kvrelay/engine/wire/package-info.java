/**
 * The consumer-side reading of received WAN catalog descriptors that the engine's consumer, the gRPC transport
 * and the launcher's inspect command share (wan-grpc.md §1.8, §7.3): {@link
 * dev.kvrelay.engine.wire.CatalogValidator} turns each received {@code DescriptorWire} into a usable {@code
 * KvPoolDescriptor} or an {@link dev.kvrelay.engine.wire.ExcludedDescriptor} with its reason, per snapshot as a
 * {@link dev.kvrelay.engine.wire.CatalogValidation}. Transport plumbing, not API: the module exports this package
 * only to {@code dev.kvrelay.grpc} and {@code dev.kvrelay.launcher}; an embedder applies a catalog through {@code
 * dev.kvrelay.engine.consumer.CatalogView}. Depends on {@code dev.kvrelay.engine.wan} only; that package does not
 * depend on this one.
 */
@NullMarked
package dev.kvrelay.engine.wire;

import org.jspecify.annotations.NullMarked;
