package dev.kvrelay.launcher.cli;

import dev.kvrelay.engine.RelayEngineConfig;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable and thread-safe: what the stock relay runs with — the validated engine configuration plus the
 * launcher-level settings that are not engine knobs ({@code producer.md} §7.1, §8.2).
 *
 * <p>In file mode ({@link #sourcesFile()} present) the namespaces come from the sources file; the engine
 * configuration's scope is then the default (watch all, no endpoint prefixes) and must not be used for
 * discovery — the endpoint prefix filter is empty in file mode ({@code producer.md} §8.2).
 *
 * @param engine the validated engine configuration
 * @param sourcesFile the {@code --sources-file} path; empty in discovery mode
 * @param connectionRevision {@code DYN_RELAY_CONNECTION_REVISION}; read only in file mode, else empty
 */
public record RelaySettings(RelayEngineConfig engine, Optional<Path> sourcesFile,
    Optional<String> connectionRevision) {

  /** Checks that no component is null and that a connection revision comes only with a sources file. */
  public RelaySettings {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(sourcesFile, "sourcesFile");
    Objects.requireNonNull(connectionRevision, "connectionRevision");
    if (connectionRevision.isPresent() && sourcesFile.isEmpty()) {
      throw new IllegalArgumentException("a connection revision needs a sources file");
    }
  }

  /** True when the namespaces come from {@link #sourcesFile()} ({@code /engine/state} mode "from-file"). */
  public boolean fileMode() {
    return sourcesFile.isPresent();
  }
}
