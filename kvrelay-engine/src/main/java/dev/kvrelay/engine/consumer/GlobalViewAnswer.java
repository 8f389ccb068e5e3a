package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the answer of {@link RelayConsumer#query} (and of the consumer's global view).
 *
 * @param status whether depths are available
 * @param matches one entry per ready and fresh pool serving the model, ascending by lane (empty unless
 *     {@link Status#ANSWERED})
 * @param generation the view generation the query ran against
 * @param bySource the same matches keyed by the name each pool's relay was given in
 *     {@link RelayConsumer.Builder#source} (e.g. {@code "us-west"}), in lane order; a match whose source is not
 *     known (a pool being re-assigned while the query ran) is only in {@code matches}
 */
public record GlobalViewAnswer(
    Status status, List<GlobalViewMatch> matches, long generation, Map<String, GlobalViewMatch> bySource) {

  /** Immutable and thread-safe: the kind of answer. */
  public enum Status {
    /** At least one pool serving the model was ready and fresh; see {@link #matches()}. */
    ANSWERED,
    /** No assigned pool registers the requested model (target, canonical id or alias); no pool was queried. */
    NO_POOL_FOR_MODEL,
    /** Pools serve the model, but none is ready and fresh. */
    UNAVAILABLE,
    /** The request itself is unusable (null token array or model). */
    INVALID_REQUEST
  }

  /** Copies {@code matches} and {@code bySource} (keeping its order). */
  public GlobalViewAnswer {
    Objects.requireNonNull(status, "status");
    matches = List.copyOf(matches);
    bySource = Collections.unmodifiableMap(new LinkedHashMap<>(bySource));
  }

  /** An answer with no source names (the global view alone does not know them). */
  public GlobalViewAnswer(Status status, List<GlobalViewMatch> matches, long generation) {
    this(status, matches, generation, Map.of());
  }

  /** The match of the source named {@code source}, or empty. */
  public Optional<GlobalViewMatch> match(String source) {
    return Optional.ofNullable(bySource.get(source));
  }

  static GlobalViewAnswer of(Status status, long generation) {
    return new GlobalViewAnswer(status, List.of(), generation);
  }

  /** This answer with {@link #bySource()} filled from {@code sourceOf} (null: unknown). */
  GlobalViewAnswer withSources(Function<KvPoolId, @Nullable String> sourceOf) {
    Map<String, GlobalViewMatch> named = new LinkedHashMap<>();
    for (GlobalViewMatch m : matches) {
      String name = sourceOf.apply(m.pool());
      if (name != null) {
        named.putIfAbsent(name, m);
      }
    }
    return new GlobalViewAnswer(status, matches, generation, named);
  }
}
