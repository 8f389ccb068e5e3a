package dev.kvrelay.ckf.hashing;

import java.util.Arrays;

/**
 * Immutable and thread-safe: per-block multimodal object hashes of one request, kept sorted ascending as
 * unsigned 64-bit values.
 *
 * <p>Entry {@code i} lists the {@code mm_hash} values of the objects overlapping block {@code i}; blocks
 * past the end, and empty entries, carry none and hash like plain token blocks. Sorting happens here, at
 * construction, so that block hashing itself does not allocate.
 */
public final class MultimodalBlockHashes {
  private static final long[] NO_HASHES = new long[0];

  /** No multimodal information for any block. */
  public static final MultimodalBlockHashes NONE = new MultimodalBlockHashes(new long[0][]);

  private final long[][] sortedPerBlock;

  private MultimodalBlockHashes(long[][] sortedPerBlock) {
    this.sortedPerBlock = sortedPerBlock;
  }

  /**
   * Copies {@code perBlock} (entry {@code i} = the {@code mm_hash} values of block {@code i}, in any
   * order, duplicates kept) and sorts each entry ascending as unsigned values.
   */
  public static MultimodalBlockHashes of(long[]... perBlock) {
    long[][] sorted = new long[perBlock.length][];
    for (int block = 0; block < perBlock.length; block++) {
      sorted[block] = sortedUnsigned(perBlock[block]);
    }
    return new MultimodalBlockHashes(sorted);
  }

  /** Number of blocks that have an entry (possibly empty). */
  public int blockCount() {
    return sortedPerBlock.length;
  }

  /** Block {@code block}'s hashes sorted ascending (unsigned), as a new array; empty if it has none. */
  public long[] sortedHashes(int block) {
    return hashesOf(block).clone();
  }

  /** The shared sorted array of block {@code block}; never modify it. */
  long[] hashesOf(int block) {
    return block >= 0 && block < sortedPerBlock.length ? sortedPerBlock[block] : NO_HASHES;
  }

  private static long[] sortedUnsigned(long[] hashes) {
    if (hashes.length == 0) {
      return NO_HASHES;
    }
    long[] copy = new long[hashes.length];
    // Flipping the sign bit maps unsigned order onto signed order, so a signed sort suffices.
    for (int i = 0; i < hashes.length; i++) {
      copy[i] = hashes[i] ^ Long.MIN_VALUE;
    }
    Arrays.sort(copy);
    for (int i = 0; i < copy.length; i++) {
      copy[i] ^= Long.MIN_VALUE;
    }
    return copy;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("MultimodalBlockHashes[");
    for (int block = 0; block < sortedPerBlock.length; block++) {
      if (block > 0) {
        sb.append(", ");
      }
      sb.append('[');
      for (int i = 0; i < sortedPerBlock[block].length; i++) {
        if (i > 0) {
          sb.append(", ");
        }
        sb.append(Long.toUnsignedString(sortedPerBlock[block][i]));
      }
      sb.append(']');
    }
    return sb.append(']').toString();
  }
}
