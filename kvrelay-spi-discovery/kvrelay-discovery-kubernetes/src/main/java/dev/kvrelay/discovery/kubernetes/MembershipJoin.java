package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;


/**
 * Stateless and thread-safe: the join of ready members with CRs ({@code runtime-inputs §3.2}): a ready
 * member contributes the records of the CR named by its {@code cr_key} if that CR has (or had, in the same
 * incarnation) valid {@code spec.data} and one of its Pod ownerReferences has the member's pod uid.
 */
public final class MembershipJoin {

  /**
   * Immutable and thread-safe: one join result.
   *
   * @param records every joined record by key, CRs in name order (a key in two CRs: the first CR wins)
   * @param matchedCrs names of the CRs that contributed, sorted
   * @param ownerMismatches ready members whose CR is owned by another pod uid (skipped)
   * @param withoutCr ready members with no CR, or none with valid data yet (skipped)
   * @param duplicateKeys records dropped because an earlier CR had the same key
   */
  public record Result(Map<DiscoveryKey, DiscoveryRecord> records, List<String> matchedCrs, int ownerMismatches,
      int withoutCr, int duplicateKeys) {
    /** Copies the collections (keeping order). */
    public Result {
      records = Collections.unmodifiableMap(new LinkedHashMap<>(records));
      matchedCrs = List.copyOf(matchedCrs);
    }
  }

  private MembershipJoin() {}

  /** Joins {@code ready} (duplicates allowed: a pod may be in several EndpointSlices) with {@code crs} by name. */
  public static Result join(Collection<ReadyMember> ready, Map<String, WorkerCr> crs) {
    TreeMap<String, List<DiscoveryRecord>> matched = new TreeMap<>();
    int ownerMismatches = 0;
    int withoutCr = 0;
    for (ReadyMember m : new LinkedHashSet<>(ready)) {
      WorkerCr cr = crs.get(m.crName());
      List<DiscoveryRecord> crRecords = cr == null ? null : cr.records();
      if (cr == null || crRecords == null) {
        withoutCr++;
      } else if (!cr.ownerPodUids().contains(m.podUid())) {
        ownerMismatches++;
      } else {
        matched.put(cr.name(), crRecords);
      }
    }
    Map<DiscoveryKey, DiscoveryRecord> records = new LinkedHashMap<>();
    int duplicates = 0;
    for (List<DiscoveryRecord> crRecords : matched.values()) {
      for (DiscoveryRecord r : crRecords) {
        if (records.putIfAbsent(r.key(), r) != null) {
          duplicates++;
        }
      }
    }
    return new Result(records, List.copyOf(matched.keySet()), ownerMismatches, withoutCr, duplicates);
  }
}
