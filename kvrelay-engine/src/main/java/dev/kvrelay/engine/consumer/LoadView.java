package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Not thread-safe: confined to the consumer task; reads go through the immutable {@link #snapshot()}. The
 * consumer's view of one relay's pool-load stream (wan-grpc.md §4.1, §7.5): {@code window_sequence} increases
 * strictly within a stream (a window at or below the last one is an error and changes nothing); each window
 * replaces the whole view; entries are joined to the catalog by ProducerKey (the full {@code ProducerIdentity},
 * never the pool id alone); freshness is the local receive time. {@link #reset()} after the stream is
 * reopened (a lag error reopens only the load stream and never touches CKF state).
 */
final class LoadView {

  private boolean hasWindow;
  private long lastSequence;
  private long receivedUs;
  private List<KvPoolLoadEntry> lastEntries = List.of();
  private LoadSnapshot published = LoadSnapshot.EMPTY;

  /** An empty view. */
  public LoadView() {}

  /**
   * Applies one window received at {@code nowUs}, joined to {@code catalog}.
   *
   * @throws StreamOrderException {@code WINDOW_NOT_INCREASING} if the sequence is not above the last one
   */
  public LoadSnapshot apply(KvPoolLoadUpdate window, CatalogView catalog, long nowUs) throws StreamOrderException {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(catalog, "catalog");
    if (hasWindow && Long.compareUnsigned(window.windowSequence(), lastSequence) <= 0) {
      throw new StreamOrderException(StreamOrderException.Reason.WINDOW_NOT_INCREASING,
          "window " + Long.toUnsignedString(window.windowSequence()) + " <= " + Long.toUnsignedString(lastSequence));
    }
    hasWindow = true;
    lastSequence = window.windowSequence();
    receivedUs = nowUs;
    lastEntries = window.pools();
    return rejoin(catalog);
  }

  /** Joins the last window again to {@code catalog} (after a catalog change) and republishes. */
  public LoadSnapshot rejoin(CatalogView catalog) {
    Objects.requireNonNull(catalog, "catalog");
    if (!hasWindow) {
      return published;
    }
    Map<KvPoolId, Integer> counts = new HashMap<>();
    for (KvPoolLoadEntry e : lastEntries) {
      counts.merge(e.producer().poolId(), 1, Integer::sum);
    }
    Map<KvPoolId, PoolLoad> joined = new HashMap<>();
    List<KvPoolLoadEntry> unjoined = new ArrayList<>();
    Set<KvPoolId> ambiguous = new HashSet<>();
    for (KvPoolLoadEntry e : lastEntries) {
      KvPoolId pool = e.producer().poolId();
      if (counts.getOrDefault(pool, 0) > 1) {
        ambiguous.add(pool);
        continue;
      }
      KvPoolDescriptor d = catalog.descriptor(pool).orElse(null);
      if (d != null && d.producer().equals(e.producer())) {
        joined.put(pool, new PoolLoad(e, receivedUs));
      } else {
        unjoined.add(e);
      }
    }
    published = new LoadSnapshot(true, lastSequence, receivedUs, joined, unjoined, ambiguous);
    return published;
  }

  /** Drops all state when the stream is reopened: the next window is accepted whatever its sequence. */
  public void reset() {
    hasWindow = false;
    lastSequence = 0;
    receivedUs = 0;
    lastEntries = List.of();
    published = LoadSnapshot.EMPTY;
  }

  /** The current immutable state. */
  public LoadSnapshot snapshot() {
    return published;
  }
}
