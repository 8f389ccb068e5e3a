package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: what the backend keeps of one {@code DynamoWorkerMetadata} CR ({@code
 * runtime-inputs §3.1–§3.2}).
 *
 * @param name {@code metadata.name} (the {@code cr_key})
 * @param uid {@code metadata.uid} (the incarnation; last valid data is kept only within one)
 * @param resourceVersion {@code metadata.resourceVersion}
 * @param ownerPodUids uids of the {@code Pod} ownerReferences
 * @param records the records of the last valid {@code spec.data} of this incarnation, or null if it never
 *     had valid data
 * @param skipped the malformed entries of the current {@code spec.data} (skipped, reported)
 * @param currentDataValid false if the current {@code spec.data} is null or not a valid object (then
 *     {@code records} are the last valid ones)
 */
public record WorkerCr(String name, String uid, String resourceVersion, Set<String> ownerPodUids,
    @Nullable List<DiscoveryRecord> records, List<DiscoveryDecodeException> skipped, boolean currentDataValid) {

  /** Copies the collections. */
  public WorkerCr {
    ownerPodUids = Set.copyOf(ownerPodUids);
    records = records == null ? null : List.copyOf(records);
    skipped = List.copyOf(skipped);
  }
}
