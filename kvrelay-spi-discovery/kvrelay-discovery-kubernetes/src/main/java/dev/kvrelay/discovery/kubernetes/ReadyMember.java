package dev.kvrelay.discovery.kubernetes;

/**
 * Immutable and thread-safe: one ready pod (pod mode) or ready container (container mode) that may have a
 * {@code DynamoWorkerMetadata} CR ({@code runtime-inputs §3.2–§3.3}).
 *
 * @param crName the name of the CR it must have ({@code cr_key}: the pod name, or the container rule)
 * @param podUid the pod's uid (EndpointSlice {@code targetRef.uid} or Pod {@code metadata.uid}); never empty
 */
public record ReadyMember(String crName, String podUid) {
  /** Checks the fields. */
  public ReadyMember {
    if (crName.isEmpty() || podUid.isEmpty()) {
      throw new IllegalArgumentException("a ready member needs a CR name and a pod uid");
    }
  }
}
