package dev.kvrelay.ckf.producer;

/**
 * Immutable and thread-safe result of one producer call: {@link #OK} or the first error it met
 * (siblings of a failed block stay applied unless the error rejects the whole event).
 */
public enum CkfOutcome {
  /** Everything applied. */
  OK,
  /** A capacity omission: the hash's ownership is committed but it is not resident in the table. */
  CAPACITY_EXHAUSTED,
  /** The Stored event's parent is not in this member's lineage; nothing was committed. */
  PARENT_BLOCK_NOT_FOUND,
  /**
   * A Stored event re-mapped an external id to a different canonical hash, or had no parent and a
   * non-zero start position; nothing was committed.
   */
  INVALID_BLOCK_SEQUENCE,
  /** A canonical hash already has {@code u32::MAX} owners; nothing was committed. */
  OWNERSHIP_DEGREE_OVERFLOW,
  /** A physical delete found no copy of a resident hash: the producer must be fenced and rebuilt. */
  INDEXER_INVARIANT_VIOLATION,
  /** A rank replacement names the wrong member, or two replacements name the same member. */
  INVALID_TREE_DUMP;

  /** True for {@link #OK}. */
  public boolean isOk() {
    return this == OK;
  }
}
