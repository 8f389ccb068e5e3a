package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.plugin.PluginRegistry;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Stateless and thread-safe: the registry of discovery backends. A lookup of a known but absent provider
 * names the artifact to add.
 */
public final class DiscoveryProviders {

  /** What the providers are, in messages. */
  public static final String KIND = "discovery backend";

  /** Provider name → the artifact that ships it. */
  public static final Map<String, String> KNOWN_ARTIFACTS = Map.of(
      "kubernetes", "dev.kvrelay:kvrelay-discovery-kubernetes",
      "etcd", "dev.kvrelay:kvrelay-discovery-etcd",
      "file", "dev.kvrelay:kvrelay-discovery-file",
      InMemoryDiscoveryProvider.NAME, InMemoryDiscoveryProvider.ARTIFACT);

  private DiscoveryProviders() {}

  /** The providers visible to {@link ServiceLoader} from this module (or the thread's class loader on the class path). */
  public static PluginRegistry<DiscoveryProvider> load() {
    return PluginRegistry.of(KIND, ServiceLoader.load(DiscoveryProvider.class), KNOWN_ARTIFACTS);
  }

  /** The providers visible to {@link ServiceLoader} through {@code loader}. */
  public static PluginRegistry<DiscoveryProvider> load(ClassLoader loader) {
    return PluginRegistry.of(KIND, ServiceLoader.load(DiscoveryProvider.class, loader), KNOWN_ARTIFACTS);
  }

  /** A registry over explicitly given providers (embedders, tests). */
  public static PluginRegistry<DiscoveryProvider> of(Iterable<? extends DiscoveryProvider> providers) {
    return PluginRegistry.of(KIND, providers, KNOWN_ARTIFACTS);
  }
}
