package dev.kvrelay.engine.wire;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.WireValidationException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a received descriptor a consumer must not use ({@code wan-grpc.md} §1.8, §7.3).
 * The consumer drops the pool's CKF and load state either way.
 *
 * @param index position of the descriptor in the received snapshot
 * @param poolId the pool, if its producer key could be read; {@code null} otherwise
 * @param kind {@link WireValidationException.Kind#UNSUPPORTED} ⇒ quarantined (may be valid in a newer
 *     revision), {@link WireValidationException.Kind#MALFORMED} ⇒ rejected
 * @param field dotted path of the offending field
 * @param reason what is wrong, for humans
 */
public record ExcludedDescriptor(
    int index, @Nullable KvPoolId poolId, WireValidationException.Kind kind, String field, String reason) {

  /** Trusted constructor. */
  public ExcludedDescriptor {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(reason, "reason");
  }

  /** True if quarantined (unsupported) rather than rejected (malformed). */
  public boolean quarantined() {
    return kind == WireValidationException.Kind.UNSUPPORTED;
  }
}
