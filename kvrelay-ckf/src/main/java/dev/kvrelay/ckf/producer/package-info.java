/**
 * The per-pool CKF producer: exact (member, external-id) ownership over canonical sequence hashes,
 * capacity omissions, the dirty-bucket window, and delta/snapshot publication sequencing.
 *
 * <p>Everything here is single-writer and confined to one pool actor; no threads, no I/O. All 64-bit
 * hashes are unsigned values carried in {@code long}.
 */
@NullMarked
package dev.kvrelay.ckf.producer;

import org.jspecify.annotations.NullMarked;
