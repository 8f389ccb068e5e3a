package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the relay's own pod ({@code runtime-inputs §3.5}): name, uid and namespace
 * from the Downward API files {@code pod_name}, {@code pod_uid}, {@code pod_namespace} in {@code
 * /etc/podinfo} first, else the variables {@code POD_NAME}, {@code POD_UID}, {@code POD_NAMESPACE}; the
 * namespace defaults to {@code default}. {@code CONTAINER_NAME} names the container (container mode).
 *
 * @param podName the pod name, or null if neither source has it (then the relay cannot register)
 * @param podUid the pod uid, or null if neither source has it
 * @param namespace the Kubernetes namespace the relay runs in (and the only one it watches)
 * @param containerName the container name ({@code CONTAINER_NAME}), or null
 */
public record PodIdentity(@Nullable String podName, @Nullable String podUid, String namespace,
    @Nullable String containerName) {

  /** The Downward API directory of the deployment guide. */
  public static final Path DEFAULT_PODINFO_DIR = Path.of("/etc/podinfo");
  /** The namespace when neither source names one. */
  public static final String DEFAULT_NAMESPACE = "default";

  /**
   * Reads the identity from {@code podinfoDir} (missing or empty files are skipped) and then {@code settings}.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) if a podinfo file exists but cannot be read
   */
  public static PodIdentity resolve(DiscoverySettings settings, Path podinfoDir) throws DiscoveryException {
    String name = firstOf(podinfoDir.resolve("pod_name"), settings.get("POD_NAME"));
    String uid = firstOf(podinfoDir.resolve("pod_uid"), settings.get("POD_UID"));
    String ns = firstOf(podinfoDir.resolve("pod_namespace"), settings.get("POD_NAMESPACE"));
    String container = settings.get("CONTAINER_NAME");
    return new PodIdentity(name, uid, ns == null ? DEFAULT_NAMESPACE : ns,
        container == null || container.isBlank() ? null : container.trim());
  }

  private static @Nullable String firstOf(Path file, @Nullable String env) throws DiscoveryException {
    try {
      String v = Files.readString(file, StandardCharsets.UTF_8).trim();
      if (!v.isEmpty()) {
        return v;
      }
    } catch (NoSuchFileException e) {
      // fall back to the environment
    } catch (IOException e) {
      throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
          "cannot read the podinfo file " + file + ": " + e.getMessage(), e);
    }
    return env == null || env.isBlank() ? null : env.trim();
  }

  /**
   * The name of the relay's own CR: the pod name, or in container mode the {@link
   * ReadinessMode#containerCrName} of {@code CONTAINER_NAME}.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) if the pod name (or, in container mode, the
   *     container name) is unknown
   */
  public String crName(ReadinessMode mode) throws DiscoveryException {
    String pod = require(podName, "POD_NAME (or /etc/podinfo/pod_name)");
    if (mode == ReadinessMode.POD) {
      return pod;
    }
    return ReadinessMode.containerCrName(pod, require(containerName, "CONTAINER_NAME"));
  }

  /**
   * The pod uid.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) if unknown
   */
  public String requireUid() throws DiscoveryException {
    return require(podUid, "POD_UID (or /etc/podinfo/pod_uid)");
  }

  private static String require(@Nullable String value, String what) throws DiscoveryException {
    if (value == null) {
      throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
          what + " is not set: the relay cannot register its own DynamoWorkerMetadata");
    }
    return value;
  }
}
