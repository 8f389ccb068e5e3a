package dev.kvrelay.engine.actor;

import dev.kvrelay.ckf.producer.CkfOutcome;

/** Immutable and thread-safe: the kind of a fault raised by the pool actor. */
public enum FaultKind {
  /** Bounded relocation failed. */
  CAPACITY_EXHAUSTED(FaultDisposition.CONTINUE_CAPACITY_OMISSION),
  /** The Stored parent is not in the source's lineage. */
  PARENT_BLOCK_NOT_FOUND(FaultDisposition.REJECT_SOURCE),
  /** Conflicting external id mapping, or no parent with a non-zero start position. */
  INVALID_BLOCK_SEQUENCE(FaultDisposition.REJECT_SOURCE),
  /** A canonical hash reached {@code u32::MAX} owners. */
  OWNERSHIP_DEGREE_OVERFLOW(FaultDisposition.REJECT_SOURCE),
  /** A rank replacement named the wrong or a duplicate member. */
  INVALID_TREE_DUMP(FaultDisposition.REJECT_SOURCE),
  /** The event's (worker, dp_rank) differs from the member it was submitted for. */
  MEMBER_MISMATCH(FaultDisposition.REJECT_SOURCE),
  /** A physical delete found no copy of a resident hash. */
  INDEXER_INVARIANT_VIOLATION(FaultDisposition.FENCE_AND_REBUILD_PRODUCER),
  /** An unexpected exception inside the producer: treated as an invariant violation. */
  INTERNAL_ERROR(FaultDisposition.FENCE_AND_REBUILD_PRODUCER);

  private final FaultDisposition disposition;

  FaultKind(FaultDisposition disposition) {
    this.disposition = disposition;
  }

  /** The disposition table of producer.md §3.5. */
  public FaultDisposition disposition() {
    return disposition;
  }

  /**
   * The fault kind of a non-OK producer outcome.
   *
   * @throws IllegalArgumentException for {@link CkfOutcome#OK} (not a fault)
   */
  public static FaultKind of(CkfOutcome outcome) {
    return switch (outcome) {
      case OK -> throw new IllegalArgumentException("OK is not a fault");
      case CAPACITY_EXHAUSTED -> CAPACITY_EXHAUSTED;
      case PARENT_BLOCK_NOT_FOUND -> PARENT_BLOCK_NOT_FOUND;
      case INVALID_BLOCK_SEQUENCE -> INVALID_BLOCK_SEQUENCE;
      case OWNERSHIP_DEGREE_OVERFLOW -> OWNERSHIP_DEGREE_OVERFLOW;
      case INDEXER_INVARIANT_VIOLATION -> INDEXER_INVARIANT_VIOLATION;
      case INVALID_TREE_DUMP -> INVALID_TREE_DUMP;
    };
  }
}
