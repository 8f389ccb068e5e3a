package dev.kvrelay.engine.stream;

/**
 * Thread-safe: a copy-on-write set of live subscriber streams. Adding and removing (rare: subscribe and
 * close) copy the array under the set's lock; a publisher reads {@link #snapshot()} and walks it by index,
 * without locking or allocating.
 */
final class Subscribers {
  private static final SubscriberStream<?>[] NONE = new SubscriberStream<?>[0];

  private volatile SubscriberStream<?>[] members = NONE;

  synchronized void add(SubscriberStream<?> s) {
    SubscriberStream<?>[] old = members;
    SubscriberStream<?>[] next = java.util.Arrays.copyOf(old, old.length + 1);
    next[old.length] = s;
    members = next;
  }

  synchronized void remove(SubscriberStream<?> s) {
    SubscriberStream<?>[] old = members;
    for (int i = 0; i < old.length; i++) {
      if (old[i] == s) {
        SubscriberStream<?>[] next = new SubscriberStream<?>[old.length - 1];
        System.arraycopy(old, 0, next, 0, i);
        System.arraycopy(old, i + 1, next, i, old.length - i - 1);
        members = next;
        return;
      }
    }
  }

  /**
   * Adds {@code s} unless its source is already closed: the closed flag is read after adding, so a close racing the
   * subscribe either sees the new member (and ends it) or is seen here (and the member is removed again).
   */
  <S extends SubscriberStream<?>> S attach(S s, java.util.function.BooleanSupplier closed) {
    add(s);
    if (closed.getAsBoolean()) {
      remove(s);
    }
    return s;
  }

  /** Removes and ends every member (the source closed). */
  void endAll() {
    SubscriberStream<?>[] subs = snapshot();
    for (int i = 0; i < subs.length; i++) {
      remove(subs[i]);
      subs[i].ended();
    }
  }

  /** The current members; the array must not be modified. */
  SubscriberStream<?>[] snapshot() {
    return members;
  }

  int size() {
    return members.length;
  }
}
