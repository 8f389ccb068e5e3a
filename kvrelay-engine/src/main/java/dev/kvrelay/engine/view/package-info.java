/**
 * The consumer side (wan-grpc.md §7), fed by the in-process engine and by the gRPC client alike through
 * {@link dev.kvrelay.engine.view.RelaySource}: the catalog view ({@code KvPoolCatalogUpdate}s, validation and
 * quarantine), the pool replica ({@code FilterUpdate}-shaped frames applied to one Global CKF lane), the readiness
 * and load views, the multi-DC {@link dev.kvrelay.engine.view.GlobalView} that answers prefix queries, and
 * {@link dev.kvrelay.engine.view.RelayConsumer}, which drives all of them over up to 16 relays with reconnects and
 * backoff. The views are pure, single-threaded and deterministic (time is passed in); the consumer confines them to
 * one serial task.
 */
@NullMarked
package dev.kvrelay.engine.view;

import org.jspecify.annotations.NullMarked;
