package dev.kvrelay.requestplane.tcp;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Thread-safe (atomic cells): monotonically increasing counters keyed by an enum, readable as a snapshot.
 *
 * @param <E> the counter names
 */
@SuppressWarnings("EnumOrdinal") // one atomic cell per constant, by ordinal: lock- and allocation-free counting
public final class Counters<E extends Enum<E>> {
  private final Class<E> type;
  private final AtomicLongArray cells;

  Counters(Class<E> type) {
    this.type = type;
    this.cells = new AtomicLongArray(type.getEnumConstants().length);
  }

  void add(E counter) {
    cells.incrementAndGet(counter.ordinal());
  }

  /** The current value of {@code counter}. */
  public long get(E counter) {
    return cells.get(counter.ordinal());
  }

  /** Every counter's current value (not an atomic cut across counters). */
  public Map<E, Long> snapshot() {
    EnumMap<E, Long> m = new EnumMap<>(type);
    for (E e : type.getEnumConstants()) {
      m.put(e, cells.get(e.ordinal()));
    }
    return Collections.unmodifiableMap(m);
  }

  @Override
  public String toString() {
    return snapshot().toString();
  }
}
