package dev.kvrelay.launcher.cli;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the log levels asked for by {@code --log-level} and {@code DYN_LOG}.
 *
 * <p>{@code DYN_LOG} follows upstream's filter syntax in its simple form: a comma-separated list whose bare item is
 * the root level and whose {@code logger=level} items set one logger (a Java logger name, e.g.
 * {@code dev.kvrelay.engine=debug}); {@code --log-level LEVEL} replaces the root level of {@code DYN_LOG} and keeps
 * its per-logger items. Levels: {@code trace}, {@code debug}, {@code info}, {@code warn} (also {@code warning}),
 * {@code error}, {@code off}, any case. Nothing set ⇒ {@code logback.xml}'s defaults (root {@code info}).
 *
 * @param rootLevel the root level, if set
 * @param loggerLevels logger name → level
 */
public record LogSettings(Optional<String> rootLevel, Map<String, String> loggerLevels) {
  /** The environment variable. */
  public static final String ENV = "DYN_LOG";
  /** The level names accepted, in order of verbosity. */
  public static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");

  /** Nothing set. */
  public static final LogSettings DEFAULT = new LogSettings(Optional.empty(), Map.of());

  /** Copies the map. */
  public LogSettings {
    Objects.requireNonNull(rootLevel, "rootLevel");
    loggerLevels = Collections.unmodifiableMap(new TreeMap<>(loggerLevels));
  }

  /**
   * Reads {@code --log-level} (null when absent) over {@code DYN_LOG} (null when unset).
   *
   * @throws IllegalArgumentException with the text of an argument error for an unknown level or a malformed item
   */
  static LogSettings of(@Nullable String flag, @Nullable String dynLog) {
    Optional<String> root = Optional.empty();
    TreeMap<String, String> loggers = new TreeMap<>();
    if (dynLog != null && !dynLog.isBlank()) {
      for (String raw : dynLog.split(",", -1)) {
        String item = raw.trim();
        if (item.isEmpty()) {
          continue;
        }
        int eq = item.indexOf('=');
        if (eq < 0) {
          root = Optional.of(level(item, ENV));
        } else {
          String name = item.substring(0, eq).trim();
          if (name.isEmpty()) {
            throw new IllegalArgumentException(ENV + ": item '" + item + "' has no logger name");
          }
          loggers.put(name, level(item.substring(eq + 1), ENV));
        }
      }
    }
    if (flag != null) {
      root = Optional.of(level(flag, "argument --log-level"));
    }
    return new LogSettings(root, loggers);
  }

  private static String level(String text, String where) {
    String l = text.trim().toLowerCase(Locale.ROOT);
    if (l.equals("warning")) {
      l = "warn";
    }
    if (!LEVELS.contains(l)) {
      throw new IllegalArgumentException(where + ": invalid level '" + text.trim() + "' (choose from "
          + String.join(", ", LEVELS) + ")");
    }
    return l;
  }
}
