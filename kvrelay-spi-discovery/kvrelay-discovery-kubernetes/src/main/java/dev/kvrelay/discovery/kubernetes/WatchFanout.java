package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Not thread-safe: confined to the backend's state thread. The open {@link KubeWatch}es of one {@link
 * KubernetesDiscovery}, the records of the last join, and what each watch has been told: a new watch gets its
 * snapshot (then the malformed entries currently stored), a relist gives every watch {@code onResync}, and any other
 * join gives each watch the per-key {@link DiscoveryDiff} of its scope.
 */
final class WatchFanout {
  private final List<KubeWatch> watches = new ArrayList<>();
  private Map<DiscoveryKey, DiscoveryRecord> current = Map.of();

  void add(KubeWatch w) {
    watches.add(w);
  }

  void remove(KubeWatch w) {
    watches.remove(w);
  }

  /** The open watches (a copy). */
  List<KubeWatch> watches() {
    return List.copyOf(watches);
  }

  /** The number of records of the last join. */
  int recordCount() {
    return current.size();
  }

  /** Reports {@code error} to every watch that has had its snapshot (a later one gets the current state anyway). */
  void reportToStarted(DiscoveryException error) {
    for (KubeWatch w : watches) {
      if (w.snapshotSent) {
        w.post(l -> l.onError(error));
      }
    }
  }

  /**
   * Brings every watch up to date with {@code records}: a snapshot for a new watch (followed by the malformed
   * entries of {@code crs}), {@code onResync} for the others if {@code resync}, else per-key upserts and removals.
   */
  void publish(Map<DiscoveryKey, DiscoveryRecord> records, Map<String, WorkerCr> crs, boolean resync) {
    current = records;
    for (KubeWatch w : watches) {
      deliver(w, crs, resync);
    }
  }

  private void deliver(KubeWatch w, Map<String, WorkerCr> crs, boolean resync) {
    List<DiscoveryRecord> inScope = new ArrayList<>();
    for (DiscoveryRecord rec : current.values()) {
      if (w.scope().matches(rec)) {
        inScope.add(rec);
      }
    }
    if (!w.snapshotSent || resync) {
      boolean first = !w.snapshotSent;
      w.snapshotSent = true;
      w.known.clear();
      for (DiscoveryRecord rec : inScope) {
        w.known.put(rec.key(), rec);
      }
      List<DiscoveryRecord> copy = List.copyOf(inScope);
      if (first) {
        w.post(l -> l.onSnapshot(copy));
        for (WorkerCr cr : new TreeMap<>(crs).values()) {
          for (DiscoveryDecodeException e : cr.skipped()) {
            w.post(l -> l.onError(e));
          }
        }
      } else {
        w.post(l -> l.onResync(copy));
      }
      return;
    }
    DiscoveryDiff diff = DiscoveryDiff.between(w.known, inScope);
    for (DiscoveryRecord rec : diff.upserted()) {
      w.known.put(rec.key(), rec);
      w.post(l -> l.onUpserted(rec));
    }
    for (DiscoveryKey k : diff.removed()) {
      w.known.remove(k);
      w.post(l -> l.onRemoved(k));
    }
  }
}
