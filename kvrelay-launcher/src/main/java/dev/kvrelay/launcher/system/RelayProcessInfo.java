package dev.kvrelay.launcher.system;

import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.launcher.health.SourcesStatus;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (if its suppliers are): what the system server reports beside the engine's own state
 * — the metric labels and the launcher-owned parts of the health object and {@code /engine/state}
 * (producer §7.5, plugins-wire §4).
 *
 * @param namespace {@code DYN_NAMESPACE} (default {@code dynamo}): the {@code dynamo_namespace} metric label
 * @param podUid {@code POD_UID}, or null ({@code /engine/state} {@code podUID})
 * @param mode {@code discovery} or {@code from-file}
 * @param connectionRevision the sources file's connection revision, or null
 * @param wan the WAN listener's current status, read on every request
 * @param sources the sources-file status, read on every request
 */
public record RelayProcessInfo(
    String namespace,
    @Nullable String podUid,
    String mode,
    @Nullable String connectionRevision,
    Supplier<WanStatus> wan,
    Supplier<SourcesStatus> sources) {

  /** {@code DYN_NAMESPACE}'s default. */
  public static final String DEFAULT_NAMESPACE = "dynamo";
  /** The discovery-mode {@code mode}. */
  public static final String MODE_DISCOVERY = "discovery";
  /** The sources-file {@code mode}. */
  public static final String MODE_FROM_FILE = "from-file";

  /** Requires the values; {@code mode} must be {@code discovery} or {@code from-file}. */
  public RelayProcessInfo {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(wan, "wan");
    Objects.requireNonNull(sources, "sources");
    if (namespace.isBlank()) {
      throw new IllegalArgumentException("namespace must not be blank");
    }
    if (!mode.equals(MODE_DISCOVERY) && !mode.equals(MODE_FROM_FILE)) {
      throw new IllegalArgumentException("mode must be discovery or from-file, got '" + mode + "'");
    }
  }

  /**
   * Discovery mode with {@code DYN_NAMESPACE} (default {@code dynamo}) and {@code POD_UID} from {@code env}, the
   * given WAN status and no sources file.
   */
  public static RelayProcessInfo discovery(Map<String, String> env, Supplier<WanStatus> wan) {
    String ns = env.get("DYN_NAMESPACE");
    return new RelayProcessInfo(ns == null || ns.isBlank() ? DEFAULT_NAMESPACE : ns, env.get("POD_UID"),
        MODE_DISCOVERY, null, wan, () -> SourcesStatus.NONE);
  }
}
