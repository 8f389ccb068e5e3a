package dev.kvrelay.spi.discovery;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Thread-safe (one lock orders every mutation and its notifications): the in-memory discovery store,
 * provider {@code mem}. It is the embedded default and the test harness: callers {@link #put}, {@link
 * #remove} and {@link #updateTaints} records, feed raw JSON through {@link #putJson} (malformed values are
 * reported to watches and change nothing), and simulate a lost connection with {@link #beginOutage()} and
 * {@link #simulateResync()}.
 *
 * <p>Each watch has its own daemon delivery thread; notifications are queued under the store lock, so
 * every watch sees changes in the order they were made. The delivery queues are unbounded: a listener
 * that never returns makes its queue grow.
 */
public final class InMemoryDiscovery implements DiscoveryBackend {
  private static final AtomicLong WATCH_IDS = new AtomicLong();

  private final Object lock = new Object();
  private final TreeMap<DiscoveryKey, DiscoveryRecord> records = new TreeMap<>(DiscoveryKey.ORDER);
  private final Map<String, DiscoveryDecodeException> malformed = new LinkedHashMap<>();
  private final List<MemWatch> watches = new CopyOnWriteArrayList<>();
  private boolean closed;
  private boolean outage;

  /** An empty store. */
  public InMemoryDiscovery() {}

  @Override
  public DiscoveryWatch watch(DiscoveryScope scope, DiscoveryListener listener) throws DiscoveryException {
    synchronized (lock) {
      if (closed) {
        throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "in-memory discovery is closed");
      }
      MemWatch watch = new MemWatch(scope, listener, "kvrelay-mem-discovery-" + WATCH_IDS.incrementAndGet(),
          watches::remove);
      List<DiscoveryRecord> snapshot = visibleTo(scope);
      watch.post(l -> l.onSnapshot(snapshot));
      for (DiscoveryDecodeException e : malformed.values()) {
        watch.post(l -> l.onError(e));
      }
      watches.add(watch);
      return watch;
    }
  }

  /** Stores (or replaces) a record and notifies the watches whose scope covers it. */
  public void put(DiscoveryRecord record) {
    synchronized (lock) {
      records.put(record.key(), record);
      malformed.remove(record.key().storageKey());
      notify(record.key(), l -> l.onUpserted(record));
    }
  }

  /**
   * Decodes a value as if written to {@code path} of {@code kind}'s bucket, then stores it like {@link
   * #put}. A malformed value changes nothing stored; every watch gets {@link DiscoveryListener#onError}
   * with the {@link DiscoveryDecodeException}, and later watches get it after their snapshot until the key
   * is removed or validly overwritten.
   *
   * @return the exception if the value was malformed, else empty
   */
  public Optional<DiscoveryDecodeException> putJson(DiscoveryKind kind, String path, String json) {
    DiscoveryRecord record;
    try {
      record = DiscoveryCodec.decodeAt(kind, path, json.getBytes(StandardCharsets.UTF_8));
    } catch (DiscoveryDecodeException e) {
      synchronized (lock) {
        malformed.put(kind.bucket() + "/" + path, e);
        if (!outage) {
          for (MemWatch w : watches) {
            w.post(l -> l.onError(e));
          }
        }
      }
      return Optional.of(e);
    }
    put(record);
    return Optional.empty();
  }

  /**
   * Removes the object with this key and notifies the watches that cover it.
   *
   * @return true if it was present
   */
  public boolean remove(DiscoveryKey key) {
    synchronized (lock) {
      boolean malformedEntry = malformed.remove(key.storageKey()) != null;
      if (records.remove(key) == null) {
        return malformedEntry;
      }
      notify(key, l -> l.onRemoved(key));
      return true;
    }
  }

  /**
   * Replaces {@code runtime_config.taints} of a stored model card and notifies with {@link
   * DiscoveryListener#onModelTaintsUpdated}; an unknown key changes nothing and notifies nobody.
   *
   * @return true if the card was known
   */
  public boolean updateTaints(ModelKey key, List<String> taints) {
    List<String> copy = List.copyOf(taints);
    synchronized (lock) {
      DiscoveryRecord current = records.get(key);
      if (!(current instanceof ModelRecord modelRecord)) {
        return false;
      }
      records.put(key, modelRecord.withTaints(copy));
      notify(key, l -> l.onModelTaintsUpdated(key, copy));
      return true;
    }
  }

  /**
   * Starts a simulated outage: changes are stored but not delivered until {@link #simulateResync()}.
   */
  public void beginOutage() {
    synchronized (lock) {
      outage = true;
    }
  }

  /**
   * Ends any outage and delivers {@link DiscoveryListener#onResync} with the complete current state to
   * every watch (as after a reconnect or an etcd compaction).
   */
  public void simulateResync() {
    synchronized (lock) {
      outage = false;
      for (MemWatch w : watches) {
        List<DiscoveryRecord> state = visibleTo(w.scope());
        w.post(l -> l.onResync(state));
        for (DiscoveryDecodeException e : malformed.values()) {
          w.post(l -> l.onError(e));
        }
      }
    }
  }

  /** Every stored record, sorted by {@link DiscoveryKey#ORDER}. */
  public List<DiscoveryRecord> records() {
    synchronized (lock) {
      return List.copyOf(records.values());
    }
  }

  /** The stored record with this key. */
  public Optional<DiscoveryRecord> get(DiscoveryKey key) {
    synchronized (lock) {
      return Optional.ofNullable(records.get(key));
    }
  }

  /**
   * A new registration: a process with a fresh random instance id (53 bits, as Kubernetes and publisher ids), whose
   * records are stored like {@link #put} and removed when it closes.
   */
  @Override
  public DiscoveryRegistrar registrar() throws DiscoveryException {
    synchronized (lock) {
      if (closed) {
        throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "in-memory discovery is closed");
      }
    }
    long id = java.util.concurrent.ThreadLocalRandom.current().nextLong(1, 1L << 53);
    return new InMemoryRegistrar(this, id);
  }

  /** Number of open watches. */
  public int watchCount() {
    return watches.size();
  }

  @Override
  public void close() {
    List<MemWatch> open;
    synchronized (lock) {
      closed = true;
      open = new ArrayList<>(watches);
    }
    for (MemWatch w : open) {
      w.close();
    }
  }

  private List<DiscoveryRecord> visibleTo(DiscoveryScope scope) {
    List<DiscoveryRecord> out = new ArrayList<>();
    for (DiscoveryRecord r : records.values()) {
      if (scope.matches(r.key())) {
        out.add(r);
      }
    }
    return List.copyOf(out);
  }

  private void notify(DiscoveryKey key, Consumer<DiscoveryListener> call) {
    if (outage) {
      return;
    }
    for (MemWatch w : watches) {
      if (w.scope().matches(key)) {
        w.post(call);
      }
    }
  }
}
