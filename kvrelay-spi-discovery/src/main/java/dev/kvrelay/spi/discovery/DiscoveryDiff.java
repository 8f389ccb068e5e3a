package dev.kvrelay.spi.discovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Immutable and thread-safe: what changed between a known state and a full relist ({@link
 * DiscoveryListener#onResync}).
 *
 * @param upserted records of the relist that are new or differ from the known ones, in relist order
 * @param removed known keys absent from the relist, sorted by {@link DiscoveryKey#ORDER}
 */
public record DiscoveryDiff(List<DiscoveryRecord> upserted, List<DiscoveryKey> removed) {

  /** Copies the lists. */
  public DiscoveryDiff {
    upserted = List.copyOf(upserted);
    removed = List.copyOf(removed);
  }

  /** The diff that turns {@code known} into {@code relist} (a later duplicate key in the relist wins). */
  public static DiscoveryDiff between(Map<DiscoveryKey, DiscoveryRecord> known, List<DiscoveryRecord> relist) {
    Map<DiscoveryKey, DiscoveryRecord> latest = new HashMap<>();
    for (DiscoveryRecord r : relist) {
      latest.put(r.key(), r);
    }
    List<DiscoveryRecord> upserted = new ArrayList<>();
    for (DiscoveryRecord r : relist) {
      if (latest.get(r.key()) == r && !r.equals(known.get(r.key()))) {
        upserted.add(r);
      }
    }
    List<DiscoveryKey> removed = new ArrayList<>();
    for (DiscoveryKey k : known.keySet()) {
      if (!latest.containsKey(k)) {
        removed.add(k);
      }
    }
    removed.sort(DiscoveryKey.ORDER);
    return new DiscoveryDiff(upserted, removed);
  }

  /** True if nothing changed. */
  public boolean isEmpty() {
    return upserted.isEmpty() && removed.isEmpty();
  }
}
