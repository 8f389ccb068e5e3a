/**
 * Consumer side of the CKF: the transposed 16-lane table, per-lane ingestion of snapshots and deltas,
 * and the grouped prefix-depth search (ckf-cbi1.md §7).
 *
 * <p>Threading model: one {@link dev.kvrelay.ckf.consumer.GlobalCkfIndexer} is shared by any number of
 * query threads; every lane has exactly one writer, its {@link dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor}.
 * Reads are weak: a delta touching several buckets is not atomic for a concurrent query.
 */
@NullMarked
package dev.kvrelay.ckf.consumer;

import org.jspecify.annotations.NullMarked;
