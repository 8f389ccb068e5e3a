package dev.kvrelay.launcher.system;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the {@code sources} member of the relay health object (producer §7.5, camelCase on
 * the wire: {@code desiredRevision}, {@code appliedRevision}, {@code count}, {@code lastError}); in discovery mode
 * {@link #NONE}.
 *
 * @param desiredRevision the connection revision asked for, or null
 * @param appliedRevision the connection revision applied, or null
 * @param count sources loaded
 * @param lastError the last load error (without the file's contents), or null
 */
public record SourcesStatus(
    @Nullable String desiredRevision, @Nullable String appliedRevision, long count, @Nullable String lastError) {

  /** No sources file (discovery mode). */
  public static final SourcesStatus NONE = new SourcesStatus(null, null, 0, null);
}
