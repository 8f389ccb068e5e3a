package dev.kvrelay.engine.recovery;

import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: one expected source of the pool as discovery advertises it (a KV-source
 * advertisement): the member {@code (worker, dp_rank)}, the event-plane publisher id of its current
 * incarnation, and its recovery target (absent ⇒ live-only source, runtime-inputs.md §6.1).
 *
 * @param member the member whose events the publisher carries
 * @param publisherId the envelope {@code publisher_id} (unsigned 64-bit)
 * @param recoveryTarget where recovery queries go, if the source is recoverable
 */
public record SourceBinding(MemberId member, long publisherId, Optional<RecoveryTarget> recoveryTarget) {
  /** Requires non-null parts. */
  public SourceBinding {
    Objects.requireNonNull(member, "member");
    Objects.requireNonNull(recoveryTarget, "recoveryTarget");
  }

  @Override
  public String toString() {
    return "SourceBinding[member=" + member + ", publisherId=" + Long.toUnsignedString(publisherId)
        + ", recoveryTarget=" + recoveryTarget + "]";
  }
}
