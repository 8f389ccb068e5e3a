package dev.kvrelay.launcher;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import dev.kvrelay.launcher.cli.LogSettings;
import java.util.Locale;
import java.util.Map;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Stateless and thread-safe (logback's context is): the launcher's logging backend. The stock jar binds logback
 * ({@code logback.xml} in this module: one line per event on standard error, root {@code info}); slf4j-api calls
 * (plugins) go there directly, {@code System.Logger} calls (engine, gRPC adapter) through
 * slf4j-jdk-platform-logging, and {@code java.util.logging} (grpc-java) through the jul-to-slf4j bridge installed
 * by {@link #install()}. {@link #apply} sets the levels of {@code --log-level} / {@code DYN_LOG}.
 */
final class LogBackend {
  private LogBackend() {}

  /** Routes {@code java.util.logging} to slf4j (once per process; idempotent). */
  static void install() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }

  /** Sets the levels {@code settings} asks for; does nothing when slf4j is not bound to logback. */
  static void apply(LogSettings settings) {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (!(factory instanceof LoggerContext context)) {
      return;
    }
    settings.rootLevel().ifPresent(l -> context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(level(l)));
    for (Map.Entry<String, String> e : settings.loggerLevels().entrySet()) {
      context.getLogger(e.getKey()).setLevel(level(e.getValue()));
    }
  }

  private static Level level(String name) {
    return Level.toLevel(name.toUpperCase(Locale.ROOT), Level.INFO);
  }
}
