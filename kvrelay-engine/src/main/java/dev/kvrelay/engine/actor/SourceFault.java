package dev.kvrelay.engine.actor;

import dev.kvrelay.ckf.producer.MemberId;

/**
 * Immutable and thread-safe: one fault raised while applying a command, with the member and publisher
 * it came from and the disposition of producer.md §3.5.
 *
 * @param member the (worker, dp_rank) source
 * @param publisherId the event-plane publisher id of the source (0 for commands without one)
 * @param kind what went wrong
 */
public record SourceFault(MemberId member, long publisherId, FaultKind kind) {
  /** The disposition of {@link #kind()}. */
  public FaultDisposition disposition() {
    return kind.disposition();
  }

  @Override
  public String toString() {
    return "SourceFault[member=" + member + ", publisherId=" + Long.toUnsignedString(publisherId)
        + ", kind=" + kind + ", disposition=" + disposition() + "]";
  }
}
