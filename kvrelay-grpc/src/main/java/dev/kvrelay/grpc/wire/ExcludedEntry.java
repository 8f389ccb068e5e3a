package dev.kvrelay.grpc.wire;

import dev.kvrelay.api.WireValidationException;
import java.util.Objects;

/**
 * Immutable and thread-safe: a received list entry that did not pass validation and was left out of the
 * decoded value (counted by the caller, never silently lost).
 *
 * @param index position in the received list
 * @param kind {@link WireValidationException.Kind#UNSUPPORTED} ⇒ quarantined, MALFORMED ⇒ rejected
 * @param field dotted path of the offending field
 * @param detail what is wrong, for humans
 */
public record ExcludedEntry(int index, WireValidationException.Kind kind, String field, String detail) {

  /** Trusted constructor. */
  public ExcludedEntry {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(detail, "detail");
  }

  static ExcludedEntry of(int index, WireValidationException e) {
    return new ExcludedEntry(index, e.kind(), e.field(), e.detail());
  }
}
