/**
 * CKF addressing, packed buckets, sizing and the producer-side cuckoo table.
 *
 * <p>All 64-bit hashes are unsigned values carried in {@code long}.
 */
@NullMarked
package dev.kvrelay.ckf;

import org.jspecify.annotations.NullMarked;
