/**
 * Consumer views (wan-grpc.md §7.2–§7.4): the pool replica that applies {@code FilterUpdate}-shaped frames
 * to one Global CKF lane, and the catalog view that applies {@code KvPoolCatalogUpdate}-shaped updates. Both
 * are pure, single-threaded and deterministic; time is always passed in. Fed by the in-process subscription
 * and by the gRPC client alike.
 */
@NullMarked
package dev.kvrelay.engine.view;

import org.jspecify.annotations.NullMarked;
