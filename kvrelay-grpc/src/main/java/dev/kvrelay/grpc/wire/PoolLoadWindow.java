package dev.kvrelay.grpc.wire;

import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import java.util.List;
import java.util.Objects;

/**
 * Immutable and thread-safe: a received {@code KvPoolLoadUpdate}: check {@link #envelope()} first, then
 * apply {@link #update()} to the consumer's {@code LoadView}. Entries whose producer fails
 * {@code ProducerIdentity.fromWire} cannot join any catalog pool by ProducerKey; they are left out of the
 * update and listed in {@link #excluded()}.
 *
 * @param envelope fields 1, 2 and 127
 * @param update the window with the entries whose producer validated, in received order
 * @param excluded entries left out, with the validator's reason (an unmodifiable copy)
 */
public record PoolLoadWindow(WireEnvelope envelope, KvPoolLoadUpdate update, List<ExcludedEntry> excluded) {

  /** Copies the list. */
  public PoolLoadWindow {
    Objects.requireNonNull(envelope, "envelope");
    Objects.requireNonNull(update, "update");
    excluded = List.copyOf(excluded);
  }
}
