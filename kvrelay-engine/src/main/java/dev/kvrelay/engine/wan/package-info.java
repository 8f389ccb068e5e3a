/**
 * The WAN message values both sides of the relay speak (wan-grpc.md §1–§5), neutral between the producer side that
 * publishes them and the consumer side that reads them: pool frames and their envelope ({@link
 * dev.kvrelay.engine.wan.PoolFrame}, {@link dev.kvrelay.engine.wan.RelayEnvelope}), the catalog ({@link
 * dev.kvrelay.engine.wan.CatalogUpdate}, {@link dev.kvrelay.engine.wan.KvPoolDescriptor}), serving readiness
 * ({@link dev.kvrelay.engine.wan.TopologySnapshot}), pool and serving load ({@link
 * dev.kvrelay.engine.wan.KvPoolLoadUpdate}, {@link dev.kvrelay.engine.wan.ServingLoadUpdate}), the pull stream
 * that carries each of them ({@link dev.kvrelay.engine.wan.RelayStream}) and the validators both sides share
 * ({@link dev.kvrelay.engine.wan.CatalogValidator}, {@link dev.kvrelay.engine.wan.TopologyEntryValidator}). Values
 * only: this package depends on no other engine package.
 */
@NullMarked
package dev.kvrelay.engine.wan;

import org.jspecify.annotations.NullMarked;
