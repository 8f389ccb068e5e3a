package dev.kvrelay.launcher.health;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the {@code sources} member of the relay health object (producer §7.5, camelCase on
 * the wire: {@code desiredRevision}, {@code appliedRevision}, {@code count}, {@code lastError}). In discovery mode
 * both revisions and the error are null and {@code count} is the number of namespaces in the scope, 0 for
 * watch-all (this project's choice: upstream does not document the discovery-mode value).
 *
 * @param desiredRevision the revision of the sources document last read (file mode), or null
 * @param appliedRevision the revision in force (file mode), or null
 * @param count sources (namespaces) in force
 * @param lastError the last invalid update's error, without the file's contents (file mode), or null
 */
public record SourcesStatus(
    @Nullable String desiredRevision, @Nullable String appliedRevision, long count, @Nullable String lastError) {

  /** Discovery mode watching every namespace. */
  public static final SourcesStatus NONE = new SourcesStatus(null, null, 0, null);

  /** Discovery mode with {@code namespaces} namespaces in the scope (0 = watch all). */
  public static SourcesStatus discovery(int namespaces) {
    return namespaces == 0 ? NONE : new SourcesStatus(null, null, namespaces, null);
  }
}
