package dev.kvrelay.launcher.system;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (every method holds this object's monitor): the status page's bounded ring of the last
 * {@link #CAPACITY} errors and warnings the relay saw, derived from counters the launcher already reads — each
 * {@link #observe} compares a scope's counters with that scope's previous observation and records one entry per
 * counter that grew ({@code sourceFaults +1 at T}), and each {@link #observeMessage} records a last-error text
 * when it changes. Entries pushed out of the full ring are counted in {@link #dropped()}; nothing is lost silently.
 *
 * <p>A scope's first observation compares with zero, so counters already non-zero then are recorded too. Counters
 * are unsigned 64-bit; one that goes back (a new generation under the same scope) re-bases without an entry.
 */
final class RecentErrors {
  /** Entries kept. */
  static final int CAPACITY = 20;

  private final int capacity;
  private final ArrayDeque<Entry> ring;
  private final Map<String, Map<String, Long>> baselines = new HashMap<>();
  private final Map<String, String> messages = new HashMap<>();
  private long recorded;
  private long dropped;

  /** A ring of {@link #CAPACITY} entries. */
  RecentErrors() {
    this(CAPACITY);
  }

  /** A ring of {@code capacity} entries (tests). */
  RecentErrors(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be ≥ 1, got " + capacity);
    }
    this.capacity = capacity;
    this.ring = new ArrayDeque<>(capacity);
  }

  /**
   * Records one entry per counter of {@code scope} that grew since the scope's previous observation.
   *
   * @param atMillis wall-clock time of the read (Unix ms)
   * @param scope what the counters belong to ({@code relay}, or a pool)
   * @param counters the counters now, by name (u64)
   */
  synchronized void observe(long atMillis, String scope, Map<String, Long> counters) {
    Objects.requireNonNull(scope, "scope");
    Map<String, Long> last = baselines.computeIfAbsent(scope, s -> new HashMap<>());
    for (Map.Entry<String, Long> c : counters.entrySet()) {
      long now = c.getValue();
      long before = last.getOrDefault(c.getKey(), 0L);
      if (Long.compareUnsigned(now, before) > 0) {
        push(new Entry(atMillis, scope, c.getKey(), now - before, now, null));
      }
      last.put(c.getKey(), now);
    }
  }

  /**
   * Records {@code message} for ({@code scope}, {@code what}) when it differs from the previous non-null one
   * (null means no error now and records nothing).
   */
  synchronized void observeMessage(long atMillis, String scope, String what, @Nullable String message) {
    if (message == null) {
      return;
    }
    String key = scope + '\u0000' + what;
    if (!message.equals(messages.put(key, message))) {
      push(new Entry(atMillis, scope, what, 0, 0, message));
    }
  }

  /** Forgets the baselines of scopes not in {@code live} (pools that ended), so the map stays bounded. */
  synchronized void retainScopes(Set<String> live) {
    baselines.keySet().retainAll(live);
  }

  /** The entries now, oldest first. */
  synchronized List<Entry> entries() {
    return List.copyOf(ring);
  }

  /** Entries recorded so far, the dropped ones included. */
  synchronized long recorded() {
    return recorded;
  }

  /** Entries pushed out of the full ring so far. */
  synchronized long dropped() {
    return dropped;
  }

  /** The ring's capacity. */
  int capacity() {
    return capacity;
  }

  private void push(Entry e) {
    if (ring.size() == capacity) {
      ring.pollFirst();
      dropped++;
    }
    ring.addLast(e);
    recorded++;
  }

  /**
   * Immutable: one error or warning.
   *
   * @param atMillis when the sampler saw it (Unix ms; the increase happened in the period before)
   * @param scope {@code relay}, a pool ({@code ns.comp.ep}), {@code sources} or {@code wan}
   * @param what the counter's name, or the message's subject
   * @param increase how much the counter grew since the previous read (0 for a message)
   * @param total the counter's value at the read, u64 (0 for a message)
   * @param message the error text for a message entry, else null
   */
  record Entry(long atMillis, String scope, String what, long increase, long total, @Nullable String message) {}
}
