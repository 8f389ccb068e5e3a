package dev.kvrelay.spi.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Thread-safe (synchronized): a listener that records every callback, applies it to a model of the
 * listener-side state (the view) exactly as the engine would, and flags contract violations (a state
 * callback before the snapshot, a second snapshot, overlapping callbacks).
 */
public final class RecordingListener implements DiscoveryListener {

  /** Immutable and thread-safe: one recorded callback. */
  public record Event(String type, Object payload, Thread thread) {}

  private final List<Event> events = new ArrayList<>();
  private final Map<DiscoveryKey, DiscoveryRecord> view = new HashMap<>();
  private final List<DiscoveryException> errors = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final List<DiscoveryDiff> resyncDiffs = new ArrayList<>();
  private final AtomicInteger inCallback = new AtomicInteger();
  private boolean snapshotSeen;

  private void enter(String type, Object payload) {
    if (inCallback.incrementAndGet() != 1) {
      synchronized (this) {
        violations.add("overlapping callbacks at " + type);
      }
    }
    synchronized (this) {
      events.add(new Event(type, payload, Thread.currentThread()));
      if (!type.equals("error")) {
        if (type.equals("snapshot")) {
          if (snapshotSeen) {
            violations.add("second onSnapshot");
          }
          snapshotSeen = true;
        } else if (!snapshotSeen) {
          violations.add("on" + type + " before onSnapshot");
        }
      }
    }
  }

  private void exit() {
    inCallback.decrementAndGet();
  }

  @Override
  public void onSnapshot(List<DiscoveryRecord> records) {
    enter("snapshot", List.copyOf(records));
    synchronized (this) {
      view.clear();
      for (DiscoveryRecord r : records) {
        view.put(r.key(), r);
      }
      notifyAll();
    }
    exit();
  }

  @Override
  public void onUpserted(DiscoveryRecord record) {
    enter("upserted", record);
    synchronized (this) {
      view.put(record.key(), record);
      notifyAll();
    }
    exit();
  }

  @Override
  public void onRemoved(DiscoveryKey key) {
    enter("removed", key);
    synchronized (this) {
      view.remove(key);
      notifyAll();
    }
    exit();
  }

  @Override
  public void onModelTaintsUpdated(ModelKey key, List<String> taints) {
    enter("taints", List.of(key, List.copyOf(taints)));
    synchronized (this) {
      DiscoveryRecord known = view.get(key);
      if (known instanceof ModelRecord) {
        view.put(key, ((ModelRecord) known).withTaints(taints));
      }
      notifyAll();
    }
    exit();
  }

  @Override
  public void onResync(List<DiscoveryRecord> records) {
    enter("resync", List.copyOf(records));
    synchronized (this) {
      resyncDiffs.add(DiscoveryDiff.between(new HashMap<>(view), records));
      view.clear();
      for (DiscoveryRecord r : records) {
        view.put(r.key(), r);
      }
      notifyAll();
    }
    exit();
  }

  @Override
  public void onError(DiscoveryException error) {
    enter("error", error);
    synchronized (this) {
      errors.add(error);
      notifyAll();
    }
    exit();
  }

  /** The listener-side state. */
  public synchronized Map<DiscoveryKey, DiscoveryRecord> view() {
    return Map.copyOf(view);
  }

  /** Every callback so far. */
  public synchronized List<Event> events() {
    return List.copyOf(events);
  }

  /** Number of callbacks so far. */
  public synchronized int eventCount() {
    return events.size();
  }

  /** Errors reported so far. */
  public synchronized List<DiscoveryException> errors() {
    return List.copyOf(errors);
  }

  /** For each onResync, the diff from the view before it to the relist. */
  public synchronized List<DiscoveryDiff> resyncDiffs() {
    return List.copyOf(resyncDiffs);
  }

  /** The records of callbacks of one type, in order. */
  public synchronized List<Object> payloads(String type) {
    List<Object> out = new ArrayList<>();
    for (Event e : events) {
      if (e.type().equals(type)) {
        out.add(e.payload());
      }
    }
    return out;
  }

  /** The distinct threads callbacks ran on. */
  public synchronized Set<Thread> threads() {
    Set<Thread> threads = new LinkedHashSet<>();
    for (Event e : events) {
      threads.add(e.thread());
    }
    return threads;
  }

  /** Contract violations seen so far (must stay empty). */
  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** Waits until {@code condition} holds for this listener, or fails after {@code timeout}. */
  public void await(Duration timeout, String what, Predicate<RecordingListener> condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (!condition.test(this)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("timed out after " + timeout + " waiting for " + what
              + "; view " + view.keySet() + ", events " + events.size() + ", errors " + errors);
        }
        wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** Waits until the view equals {@code expected} (as records by key). */
  public void awaitView(Duration timeout, Map<DiscoveryKey, DiscoveryRecord> expected) throws InterruptedException {
    await(timeout, "view " + expected.keySet(), l -> l.view.equals(expected));
  }

  /** Fails if a violation was recorded or callbacks ran on more than one thread. */
  public void assertContractKept() {
    assertThat(violations()).as("listener contract violations").isEmpty();
    assertThat(threads()).as("delivery threads of one watch").hasSizeLessThanOrEqualTo(1);
  }
}
