package dev.kvrelay.api.plugin;

/**
 * Thread-safe (implementations are stateless factories): a provider loaded through
 * {@link java.util.ServiceLoader}.
 */
public interface Plugin {
  /** The name operators select it by, e.g. {@code etcd}, {@code kubernetes}, {@code zmq}, {@code mem}. */
  String name();

  /** Maven coordinates of the artifact that ships this provider, e.g. {@code dev.kvrelay:kvrelay-discovery-etcd}. */
  String artifact();

  /** True if the provider can run in this process (its client library and environment are present). */
  default boolean isAvailable() {
    return true;
  }

  /** Among available providers without an explicit choice, the highest priority wins. */
  default int priority() {
    return 0;
  }
}
