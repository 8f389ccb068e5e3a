package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.status.Status;
import dev.kvrelay.launcher.cli.LogSettings;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The launcher's logging backend: {@code logback.xml} loads without a configuration error, quiets grpc-java's
 * per-connection traces, and {@code java.util.logging} and {@code System.Logger} both end up in logback.
 */
class LogBackendTest {
  private static final String CONNECTIONS = "io.grpc.netty.shaded.io.grpc.netty.NettyServerTransport.connections";

  private static LoggerContext context() {
    assertThat(LoggerFactory.getILoggerFactory()).as("slf4j is bound to logback").isInstanceOf(LoggerContext.class);
    return (LoggerContext) LoggerFactory.getILoggerFactory();
  }

  @Test
  void theConfigurationLoadsWithoutErrorsAndSetsTheDocumentedLevels() {
    LoggerContext ctx = context();
    assertThat(ctx.getStatusManager().getCopyOfStatusList()).as("logback configuration statuses")
        .noneMatch(s -> s.getLevel() >= Status.WARN);
    assertThat(ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.INFO);
    assertThat(ctx.getLogger(CONNECTIONS).getEffectiveLevel()).isEqualTo(Level.WARN);
  }

  @Test
  void javaUtilLoggingAndSystemLoggerReachLogback() {
    LogBackend.install();
    // LevelChangePropagator keeps JUL's level equal to logback's: grpc's INFO connection traces are dropped early.
    assertThat(java.util.logging.Logger.getLogger(CONNECTIONS).isLoggable(java.util.logging.Level.INFO)).isFalse();
    assertThat(java.util.logging.Logger.getLogger(CONNECTIONS).isLoggable(java.util.logging.Level.WARNING)).isTrue();
    assertThat(System.getLogger("dev.kvrelay.engine.RelayEngine").getClass().getName())
        .startsWith("org.slf4j.jdk.platform.logging.");
  }

  @Test
  void applySetsTheRootAndLoggerLevelsAskedFor() {
    LoggerContext ctx = context();
    Level root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel();
    try {
      LogBackend.apply(new LogSettings(Optional.of("warn"), Map.of("dev.kvrelay.test.apply", "trace")));
      assertThat(ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.WARN);
      assertThat(ctx.getLogger("dev.kvrelay.test.apply").getLevel()).isEqualTo(Level.TRACE);
      LogBackend.apply(new LogSettings(Optional.of("off"), Map.of()));
      assertThat(ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.OFF);
    } finally {
      ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(root);
      ctx.getLogger("dev.kvrelay.test.apply").setLevel(null);
    }
  }
}
