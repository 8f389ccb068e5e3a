package dev.kvrelay.ckf.consumer;

/**
 * Not thread-safe (called by one searching thread at a time): the membership oracle of the prefix-depth search, telling
 * which lanes hold the sequence element at a position. Implementations must not allocate on the hot path.
 */
@FunctionalInterface
public interface LaneProbe {
  /**
   * The 16-bit presence mask of {@code position}.
   *
   * @param position a position in {@code [0, n)}
   * @param lanes the lanes whose answer the search will read; bits outside may be anything
   * @return a mask whose bit {@code i} is set iff the element at {@code position} is present in lane {@code i}
   */
  int probe(int position, int lanes);
}
