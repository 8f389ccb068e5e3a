/**
 * The WAN message values both sides of the relay speak (wan-grpc.md §1–§5), neutral between the producer side that
 * publishes them and the consumer side that reads them: pool frames and their envelope ({@link
 * dev.kvrelay.engine.wan.PoolFrame}, {@link dev.kvrelay.engine.wan.RelayEnvelope}), the catalog ({@link
 * dev.kvrelay.engine.wan.CatalogUpdate}, {@link dev.kvrelay.engine.wan.KvPoolDescriptor}), serving readiness
 * ({@link dev.kvrelay.engine.wan.TopologySnapshot}), pool and serving load ({@link
 * dev.kvrelay.engine.wan.KvPoolLoadUpdate}, {@link dev.kvrelay.engine.wan.ServingLoadUpdate}), the pull stream
 * that carries each of them ({@link dev.kvrelay.engine.wan.RelayStream}) and the readiness validator both sides
 * share ({@link dev.kvrelay.engine.wan.TopologyEntryValidator}); the consumer-side catalog validator is transport
 * plumbing in {@code dev.kvrelay.engine.wire}. Values only: this package depends on no other engine package.
 */
@NullMarked
package dev.kvrelay.engine.wan;

import org.jspecify.annotations.NullMarked;
