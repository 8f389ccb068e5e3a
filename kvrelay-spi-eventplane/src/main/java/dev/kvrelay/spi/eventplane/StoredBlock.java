package dev.kvrelay.spi.eventplane;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one block of a {@link KvEventData.Stored} event.
 *
 * @param blockHash {@code block_hash}: the engine's opaque block id (parent lookup and removal only)
 * @param tokensHash {@code tokens_hash}: Dynamo's local block hash of the block's tokens, salt included
 * @param mmExtraInfo {@code mm_extra_info}, or {@code null} (nil)
 */
public record StoredBlock(long blockHash, long tokensHash, @Nullable MmExtraInfo mmExtraInfo) {

  /** A block without multimodal information. */
  public static StoredBlock of(long blockHash, long tokensHash) {
    return new StoredBlock(blockHash, tokensHash, null);
  }

  @Override
  public String toString() {
    return "StoredBlock[blockHash=" + Long.toUnsignedString(blockHash) + ", tokensHash="
        + Long.toUnsignedString(tokensHash) + (mmExtraInfo == null ? "" : ", mmExtraInfo=" + mmExtraInfo) + "]";
  }
}
