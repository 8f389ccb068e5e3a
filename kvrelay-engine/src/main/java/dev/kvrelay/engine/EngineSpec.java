package dev.kvrelay.engine;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.RequestPlaneClient;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe (owned by one {@link RelayEngine.Builder}): what an engine is built from, each part set at most
 * once, with the builder's validation: a part set twice, a bad value or a missing required part is an {@link
 * IllegalStateException} or {@link IllegalArgumentException} naming it, and changes nothing.
 */
final class EngineSpec {
  @Nullable RelayEngineConfig config;
  @Nullable DiscoveryBackend discovery;
  @Nullable EventPlane eventPlane;
  @Nullable RequestPlaneClient requestPlane;
  @Nullable Long relayIncarnation;
  RandomGenerator random = new SecureRandom();
  int poolThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
  private boolean poolThreadsSet;
  UnaryOperator<LoadPublisher> loadPublisher = UnaryOperator.identity();
  @Nullable Path sourcesFile;
  @Nullable String sourcesConnectionRevision;

  void sourcesFile(Path file, @Nullable String connectionRevision) {
    sourcesFile = setOnce(sourcesFile, file, "sourcesFile");
    sourcesConnectionRevision = connectionRevision;
  }

  void config(RelayEngineConfig value) {
    config = setOnce(config, value, "config");
  }

  void discovery(DiscoveryBackend value) {
    discovery = setOnce(discovery, value, "discovery");
  }

  void eventPlane(EventPlane value) {
    eventPlane = setOnce(eventPlane, value, "eventPlane");
  }

  void requestPlane(RequestPlaneClient value) {
    requestPlane = setOnce(requestPlane, value, "requestPlane");
  }

  void relayIncarnation(long value) {
    relayIncarnation = setOnce(relayIncarnation, value, "relayIncarnation");
  }

  void poolThreads(int value) {
    if (poolThreadsSet) {
      throw new IllegalStateException("poolThreads was already set");
    }
    if (value < 1) {
      throw new IllegalArgumentException("poolThreads must be at least 1, got " + value);
    }
    poolThreads = value;
    poolThreadsSet = true;
  }

  void loadPublisher(UnaryOperator<LoadPublisher> wrapper) {
    loadPublisher = Objects.requireNonNull(wrapper, "wrapper");
  }

  void random(RandomGenerator value) {
    random = Objects.requireNonNull(value);
  }

  /**
   * Checks across parts before the engine is built.
   *
   * @throws IllegalStateException naming every missing required part
   */
  void requireComplete() {
    List<String> missing = new ArrayList<>();
    if (config == null) {
      missing.add("config");
    }
    if (discovery == null) {
      missing.add("discovery");
    }
    if (eventPlane == null) {
      missing.add("eventPlane");
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException("RelayEngine.builder() is missing " + String.join(", ", missing));
    }
  }

  private static <T> T setOnce(@Nullable T current, T value, String name) {
    Objects.requireNonNull(value, name);
    if (current != null) {
      throw new IllegalStateException(name + " was already set");
    }
    return value;
  }
}
