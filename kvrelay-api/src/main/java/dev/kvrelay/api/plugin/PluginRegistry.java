package dev.kvrelay.api.plugin;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Immutable and thread-safe once built: the providers of one plugin type found on a class path, looked
 * up by name or by priority. A failed lookup names the artifact that ships the missing provider.
 *
 * @param <P> the provider interface
 */
public final class PluginRegistry<P extends Plugin> {
  private final String kind;
  private final List<P> providers;
  private final Map<String, String> knownArtifacts;

  private PluginRegistry(String kind, List<P> providers, Map<String, String> knownArtifacts) {
    this.kind = kind;
    this.providers = providers;
    this.knownArtifacts = knownArtifacts;
  }

  /**
   * A registry over the given providers. An SPI module passes {@code ServiceLoader.load(Type.class)}
   * (it must itself declare {@code uses Type} in its module descriptor); embedders and tests pass a list.
   *
   * @param kind what the providers are, for messages (e.g. {@code discovery backend})
   * @param providers the providers found
   * @param knownArtifacts provider name → artifact that ships it, for providers that may be absent
   */
  public static <P extends Plugin> PluginRegistry<P> of(
      String kind, Iterable<? extends P> providers, Map<String, String> knownArtifacts) {
    Objects.requireNonNull(kind, "kind");
    List<P> sorted = new ArrayList<>();
    for (P p : providers) {
      sorted.add(p);
    }
    sorted.sort(Comparator.comparing((P p) -> p.priority(), Comparator.reverseOrder()).thenComparing(Plugin::name));
    return new PluginRegistry<>(kind, Collections.unmodifiableList(sorted), Map.copyOf(new TreeMap<>(knownArtifacts)));
  }

  /** Every provider found, highest priority first. */
  public List<P> providers() {
    return providers;
  }

  /**
   * The provider named {@code name} (case-insensitive).
   *
   * @throws PluginNotFoundException if none is on the class path or it reports itself unavailable; the
   *     message names the artifact to add when the name is known
   */
  public P byName(String name) throws PluginNotFoundException {
    String wanted = name.trim().toLowerCase(Locale.ROOT);
    for (P p : providers) {
      if (p.name().toLowerCase(Locale.ROOT).equals(wanted)) {
        if (!p.isAvailable()) {
          throw new PluginNotFoundException(kind, name,
              kind + " '" + name + "' (" + p.artifact() + ") is on the class path but unavailable here");
        }
        return p;
      }
    }
    String artifact = knownArtifacts.get(wanted);
    String hint = artifact != null
        ? "add " + artifact + " to the class path"
        : "known names: " + String.join(", ", knownNames());
    throw new PluginNotFoundException(kind, name, "no " + kind + " named '" + name + "': " + hint);
  }

  /**
   * The available provider with the highest priority.
   *
   * @throws PluginNotFoundException if no provider is available
   */
  public P best() throws PluginNotFoundException {
    for (P p : providers) {
      if (p.isAvailable()) {
        return p;
      }
    }
    throw new PluginNotFoundException(kind, "",
        "no " + kind + " is available; add one of " + String.join(", ", knownArtifacts.values()));
  }

  private List<String> knownNames() {
    TreeMap<String, Boolean> names = new TreeMap<>();
    for (P p : providers) {
      names.put(p.name(), true);
    }
    for (String n : knownArtifacts.keySet()) {
      names.put(n, true);
    }
    return new ArrayList<>(names.keySet());
  }
}
