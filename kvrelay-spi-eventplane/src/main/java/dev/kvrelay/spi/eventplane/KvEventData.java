package dev.kvrelay.spi.eventplane;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.StringJoiner;

/**
 * Immutable and thread-safe: what a KV event does ({@code event.data}, externally tagged, snake_case):
 * {@link Stored}, {@link Removed} or {@link Cleared}.
 */
public sealed interface KvEventData permits KvEventData.Stored, KvEventData.Removed, KvEventData.Cleared {

  /**
   * Immutable and thread-safe: blocks became resident ({@code {"stored": {…}}}).
   *
   * @param parentHash {@code parent_hash}: the engine block id of the parent, if any
   * @param startPosition {@code start_position}: absolute position of the first block, if given
   * @param blocks {@code blocks}, in order (parents before children)
   */
  record Stored(OptionalLong parentHash, OptionalLong startPosition, List<StoredBlock> blocks)
      implements KvEventData {
    /** Copies the block list. */
    public Stored {
      Objects.requireNonNull(parentHash, "parentHash");
      Objects.requireNonNull(startPosition, "startPosition");
      blocks = List.copyOf(blocks);
    }

    @Override
    public String toString() {
      return "Stored[parentHash=" + unsigned(parentHash) + ", startPosition=" + unsigned(startPosition)
          + ", blocks=" + blocks + "]";
    }
  }

  /**
   * Immutable by contract and thread-safe: blocks were evicted ({@code {"removed": {"block_hashes": […]}}}).
   * The constructor takes ownership of the array and the accessor returns it without copying (so the
   * engine feeds the CKF producer without boxing or copying): nobody may write into it.
   *
   * @param blockHashes {@code block_hashes}: engine block ids, unsigned 64-bit
   */
  @SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below use the array's contents
  record Removed(long[] blockHashes) implements KvEventData {
    /** Requires a non-null array (taken over, not copied). */
    public Removed {
      Objects.requireNonNull(blockHashes, "blockHashes");
    }

    /** A removal of copies of {@code hashes}. */
    public static Removed of(long... hashes) {
      return new Removed(hashes.clone());
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Removed r && Arrays.equals(blockHashes, r.blockHashes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(blockHashes);
    }

    @Override
    public String toString() {
      StringJoiner j = new StringJoiner(", ", "Removed[blockHashes=[", "]]");
      for (long h : blockHashes) {
        j.add(Long.toUnsignedString(h));
      }
      return j.toString();
    }
  }

  /**
   * Immutable and thread-safe: every block of the source's {@code (worker, dp_rank)} in the event's
   * residency domain is gone ({@code "cleared"}).
   */
  record Cleared() implements KvEventData {
    /** The only value. */
    public static final Cleared INSTANCE = new Cleared();
  }

  private static String unsigned(OptionalLong v) {
    return v.isPresent() ? Long.toUnsignedString(v.getAsLong()) : "none";
  }
}
