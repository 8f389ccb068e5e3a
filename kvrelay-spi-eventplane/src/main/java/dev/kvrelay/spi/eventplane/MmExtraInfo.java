package dev.kvrelay.spi.eventplane;

import java.util.List;

/**
 * Immutable and thread-safe: a block's multimodal information ({@code mm_extra_info}): the multimodal
 * objects whose placeholder tokens fall in the block.
 *
 * @param mmObjects {@code mm_objects}, in wire order
 */
public record MmExtraInfo(List<MmObject> mmObjects) {

  /** Copies the list. */
  public MmExtraInfo {
    mmObjects = List.copyOf(mmObjects);
  }

  /**
   * Immutable and thread-safe: one multimodal object.
   *
   * @param mmHash {@code mm_hash}, unsigned 64-bit
   * @param offsets {@code offsets}: token ranges {@code [start, end]}
   */
  public record MmObject(long mmHash, List<TokenRange> offsets) {
    /** Copies the list. */
    public MmObject {
      offsets = List.copyOf(offsets);
    }
  }

  /**
   * Immutable and thread-safe: one {@code [start, end]} pair of an object's {@code offsets} (unsigned).
   *
   * @param start first value of the pair
   * @param end second value of the pair
   */
  public record TokenRange(long start, long end) {}
}
