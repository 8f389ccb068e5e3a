package dev.kvrelay.engine.consumer;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the answer of {@link GlobalView#assign}.
 *
 * @param outcome what happened
 * @param lane the physical lane of the pool ({@code 0..16}), or -1 when refused
 * @param refusal the typed reason, for {@link Outcome#REFUSED} only
 * @param generation the view generation after the call (unchanged when refused)
 */
record GlobalViewAssignment(Outcome outcome, int lane, @Nullable GlobalViewRefusal refusal, long generation) {

  /** Immutable and thread-safe: the kind of answer. */
  public enum Outcome {
    /** The pool was bound to a free lane; a new generation (new indexer) was published. */
    ASSIGNED,
    /** The same producer already held the lane; only its descriptor metadata was replaced. */
    UPDATED,
    /** The pool was refused; see {@link #refusal()}. Nothing changed. */
    REFUSED
  }

  static GlobalViewAssignment refused(GlobalViewRefusal refusal, long generation) {
    return new GlobalViewAssignment(Outcome.REFUSED, -1, refusal, generation);
  }

  /** True if the pool now holds a lane. */
  public boolean accepted() {
    return outcome != Outcome.REFUSED;
  }
}
