package dev.kvrelay.discovery.file;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryProvider;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Stateless and thread-safe: the {@code file} discovery provider ({@code DYN_DISCOVERY_BACKEND=file}); each
 * {@link #open} returns a {@link FileDiscovery} over {@code DYN_FILE_KV}, or {@code $TMPDIR/dynamo_store_kv}
 * ({@code /tmp/dynamo_store_kv} without {@code TMPDIR}) when it is unset, with Dynamo's 10 s TTL.
 */
public final class FileDiscoveryProvider implements DiscoveryProvider {
  /** The provider name. */
  public static final String NAME = "file";
  /** The artifact that ships it. */
  public static final String ARTIFACT = "dev.kvrelay:kvrelay-discovery-file";
  /** The setting naming the root directory. */
  public static final String ROOT_SETTING = "DYN_FILE_KV";
  /** The directory under the temporary directory used when {@link #ROOT_SETTING} is unset. */
  public static final String DEFAULT_DIRECTORY = "dynamo_store_kv";
  /** Below the networked backends (a single-machine store is chosen explicitly), above {@code mem}. */
  public static final int PRIORITY = -100;

  /** For {@link java.util.ServiceLoader}. */
  public FileDiscoveryProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String artifact() {
    return ARTIFACT;
  }

  @Override
  public int priority() {
    return PRIORITY;
  }

  @Override
  public DiscoveryBackend open(DiscoverySettings settings) throws DiscoveryException {
    return FileDiscovery.builder(root(settings)).open();
  }

  /**
   * The root directory the settings select.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) if it is not a valid path
   */
  public static Path root(DiscoverySettings settings) throws DiscoveryException {
    String configured = settings.get(ROOT_SETTING, "");
    try {
      if (!configured.isEmpty()) {
        return Path.of(configured);
      }
      return Path.of(settings.get("TMPDIR", "/tmp"), DEFAULT_DIRECTORY);
    } catch (InvalidPathException e) {
      throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
          (configured.isEmpty() ? "TMPDIR" : ROOT_SETTING) + " is not a valid path", e);
    }
  }
}
