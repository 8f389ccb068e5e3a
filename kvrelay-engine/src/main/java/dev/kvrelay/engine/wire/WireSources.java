package dev.kvrelay.engine.wire;

import dev.kvrelay.engine.wan.RelaySource;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Thread-safe (a concurrent map written once per class): the registry that finds the {@link WireSource} behind a
 * {@link RelaySource}. The engine and the gRPC client keep their streams off their public face and register, when
 * their class initialises, how to reach them; a source that is a {@code WireSource} itself (a test relay) is its
 * own wire.
 */
public final class WireSources {
  private static final ConcurrentHashMap<Class<?>, Function<RelaySource, WireSource>> ACCESS =
      new ConcurrentHashMap<>();

  private WireSources() {}

  /**
   * Registers how to reach the wire of every {@code type} instance (once per class, from its static initialiser).
   *
   * @throws IllegalStateException if {@code type} is registered already
   */
  public static <T extends RelaySource> void register(Class<T> type, Function<? super T, ? extends WireSource> wire) {
    Objects.requireNonNull(wire, "wire");
    Function<RelaySource, WireSource> access = s -> wire.apply(type.cast(s));
    if (ACCESS.putIfAbsent(Objects.requireNonNull(type, "type"), access) != null) {
      throw new IllegalStateException("wire access already registered for " + type.getName());
    }
  }

  /**
   * The wire of {@code source}.
   *
   * @throws IllegalArgumentException if {@code source} is neither a {@code WireSource} nor of a registered class
   */
  public static WireSource of(RelaySource source) {
    Objects.requireNonNull(source, "source");
    if (source instanceof WireSource wire) {
      return wire;
    }
    Function<RelaySource, WireSource> access = ACCESS.get(source.getClass());
    if (access == null) {
      throw new IllegalArgumentException("not a relay source the consumer can read: " + source.getClass().getName()
          + " (use a RelayEngine, or a RelayGrpcClient from kvrelay-grpc)");
    }
    return access.apply(source);
  }
}
