package dev.kvrelay.launcher.health;

import dev.kvrelay.engine.RelayEngine;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Thread-safe (implementations are called concurrently from HTTP and request-plane server threads): where a
 * health answer reads the relay's health object. The launcher hands the same source to the system server and to
 * the diagnostic {@code health} endpoint, so that the two always agree.
 */
@FunctionalInterface
public interface HealthSource {

  /** The health object now. */
  RelayHealth health();

  /**
   * The health object of a running engine ({@link RelayHealth#read}), outside any launcher shutdown.
   *
   * @param engine the engine
   * @param sources the sources member, read on every call
   * @param wan the WAN status, read on every call
   */
  static HealthSource ofEngine(RelayEngine engine, Supplier<SourcesStatus> sources, Supplier<WanStatus> wan) {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(sources, "sources");
    Objects.requireNonNull(wan, "wan");
    return () -> RelayHealth.read(engine, sources, wan, false);
  }
}
