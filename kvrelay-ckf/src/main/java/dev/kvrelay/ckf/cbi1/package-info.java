/**
 * The CBI1 wire payload carried in {@code FilterUpdate.payload}: a 48-byte little-endian header with an
 * XXH3 body checksum, followed by either one snapshot chunk of dense bucket words or a delta of
 * absolute bucket images.
 *
 * <p>{@link dev.kvrelay.ckf.cbi1.Cbi1Encoder} and {@link dev.kvrelay.ckf.cbi1.Cbi1Decoder} are stateless;
 * {@link dev.kvrelay.ckf.cbi1.SnapshotAssembly} reassembles the chunks of one snapshot. Every rejection
 * is a checked exception carrying an enum reason; no input makes the decoder throw anything else.
 */
@NullMarked
package dev.kvrelay.ckf.cbi1;

import org.jspecify.annotations.NullMarked;
