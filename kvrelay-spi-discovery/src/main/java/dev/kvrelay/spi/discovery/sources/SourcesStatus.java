package dev.kvrelay.spi.discovery.sources;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: what a {@link SourcesFilePoller} last saw ({@code producer.md} §8.2 status).
 *
 * @param desiredRevision the revision of the document read at the last poll, or {@code null} when that poll
 *     failed (or none has run yet)
 * @param appliedRevision the revision of the sources last handed to the listener and accepted, or {@code null}
 * @param count how many namespaces the applied sources have
 * @param lastError the last poll's failure, or {@code null}; cleared by the next good poll
 * @param lastPollAt when the last poll finished (by the poller's clock), or {@code null}
 */
public record SourcesStatus(
    @Nullable String desiredRevision,
    @Nullable String appliedRevision,
    int count,
    @Nullable SourcesException lastError,
    @Nullable Instant lastPollAt) {

  /** The status before the first poll. */
  public static final SourcesStatus INITIAL = new SourcesStatus(null, null, 0, null, null);
}
