package dev.kvrelay.engine.membership;

import dev.kvrelay.api.WireText;

/**
 * Immutable and thread-safe: one reason an endpoint's membership cannot (fully) materialize. Ordered by
 * {@link #debugText()} (code-point order), the order upstream sorts conflicts in.
 *
 * @param scope what the conflict blocks
 * @param subject what the conflict is about
 * @param reason a human-readable reason
 */
public record MembershipConflict(ConflictScope scope, ConflictSubject subject, String reason)
    implements Comparable<MembershipConflict> {

  /** {@code <scope> <subject>: <reason>}, the sort key. */
  public String debugText() {
    return scope + " " + subject + ": " + reason;
  }

  @Override
  public int compareTo(MembershipConflict other) {
    return WireText.compareCodePoints(debugText(), other.debugText());
  }

  @Override
  public String toString() {
    return debugText();
  }
}
