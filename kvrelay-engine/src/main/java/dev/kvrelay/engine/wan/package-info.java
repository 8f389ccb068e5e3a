/**
 * The WAN values an embedder reads on either side of the relay (wan-grpc.md §1–§5): the catalog ({@link
 * dev.kvrelay.engine.wan.CatalogSnapshot} of {@link dev.kvrelay.engine.wan.KvPoolDescriptor}s), serving readiness
 * ({@link dev.kvrelay.engine.wan.TopologySnapshot} and its entries), the entries of a pool-load window ({@link
 * dev.kvrelay.engine.wan.KvPoolLoadEntry}) and the opaque {@link dev.kvrelay.engine.wan.RelaySource} handle a
 * consumer reads a relay through. The messages and streams a transport carries (pool frames, catalog updates, load
 * windows, the pull stream) are transport plumbing in {@code dev.kvrelay.engine.wire}. Values only: this package
 * depends on no other engine package.
 */
@NullMarked
package dev.kvrelay.engine.wan;

import org.jspecify.annotations.NullMarked;
