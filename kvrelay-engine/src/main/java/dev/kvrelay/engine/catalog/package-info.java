/**
 * The producer-side pool catalog (producer.md §4, §2.7, §2.8; wan-grpc.md §1.5, §2.7) and the consumer-side
 * validation of received catalog descriptors (wan-grpc.md §1.8, §7.3). Pure, single-threaded and deterministic:
 * the registry task owns the {@link dev.kvrelay.engine.catalog.PoolCatalog}; snapshots are immutable values.
 */
@NullMarked
package dev.kvrelay.engine.catalog;

import org.jspecify.annotations.NullMarked;
