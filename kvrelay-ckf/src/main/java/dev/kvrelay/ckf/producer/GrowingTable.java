package dev.kvrelay.ckf.producer;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to its map's thread (the pool actor), except {@link #newTable(int)}, which runs
 * on the common {@link java.util.concurrent.ForkJoinPool} and reads no state. The growth bookkeeping
 * {@link LongLongMap} and {@link OwnersMap} share: the next table allocated ahead of the load limit off the
 * map's thread, the incremental migration cursor and budget, and the eager rehash below
 * {@link #INCREMENTAL_FROM}. A subclass owns the arrays (a table is a {@code T}) and implements the
 * per-slot hooks.
 *
 * <p>Once the size is within {@code capacity / 32} insertions of the load limit, one insertion asks the
 * common pool for the next table's arrays ({@link CompletableFuture#supplyAsync}); the JVM zeroes them
 * there. The insertion that crosses the limit takes them if they are ready (else allocates them itself,
 * the pause this avoids), keeps the entries in the old table, and every later insertion or removal moves at
 * most {@code migrationBudget} old slots (a move or a skipped empty slot each count one) into the new
 * table. When and to what capacity the map grows never depends on the other thread, so the slot layout
 * (and with it the producer's iteration order and output) is the same either way.
 */
abstract class GrowingTable<T> {
  /** Old-table slots one insertion or removal moves at most while migrating. */
  static final int MIGRATION_BUDGET = 128;
  /**
   * The smallest capacity that grows incrementally: below it one full rehash (≤ 16 Ki slots, well under
   * 1 ms) keeps the layout, and so the iteration order and the producer's output, of the eager scheme.
   */
  static final int INCREMENTAL_FROM = 1 << 14;

  static {
    // Loads and links the hand-over (CompletableFuture) and starts the common pool's first worker when the maps'
    // class is loaded: done by the first request instead, it took that insert 3.2-4.8 ms of CPU (0.62 ms after).
    // Not waited for: a class initialiser never blocks on a pool that the embedder's own tasks may keep busy.
    CompletableFuture<Boolean> unused = CompletableFuture.supplyAsync(new Warmup());
  }

  final int migrationBudget;
  final int incrementalFrom;

  /** Slots in the (new) table. */
  int capacity;
  int maxFill;
  /** Entries in the (new) table's arrays. */
  int arraySize;
  /** The size at which an insertion leaves the fast path: the load limit minus the allocation-ahead lead. */
  int slowFrom;
  /** Slots of the old table while migrating, else 0. */
  int oldCapacity;
  int oldSize;
  int cursor;
  /** Old-table slots the last migrating call moved or skipped (for tests of the per-call bound). */
  int lastMigrationWork;
  /** Whether the next table is allocated ahead (tests turn it off to compare the layouts). */
  boolean allocateAhead = true;
  /** The next table, being allocated ahead on the common pool, or null. */
  private @Nullable CompletableFuture<T> ahead;
  private int aheadCapacity;

  /**
   * Moves at most {@code migrationBudget} old slots per mutating call once the capacity is at least
   * {@code incrementalFrom} (smaller tables grow by one full rehash); tests use small values of both. A
   * growth step leaves room for ~0.225·C insertions before the next and a migration costs ≤ 1.9·C units, so
   * a budget ≥ 9 always finishes in time; with a smaller one, an insertion that reaches the next load limit
   * mid-migration finishes it in that call.
   */
  GrowingTable(int migrationBudget, int incrementalFrom) {
    if (migrationBudget < 1) {
      throw new IllegalArgumentException("migration budget must be positive: " + migrationBudget);
    }
    this.migrationBudget = migrationBudget;
    this.incrementalFrom = incrementalFrom;
  }

  /** Sets the bookkeeping of a fresh, empty (new) table of {@code cap} slots. */
  final void resetTo(int cap) {
    capacity = cap;
    maxFill = HashMix.maxFill(cap);
    arraySize = 0;
    slowFrom = cap < incrementalFrom ? maxFill : Math.max(0, maxFill - Math.max(1, cap >>> 5));
  }

  /** True while entries remain in the old table. */
  final boolean migrating() {
    return oldCapacity != 0;
  }

  /**
   * Before an insertion whose size reached {@link #slowFrom}: asks for the next table ahead, or at the load
   * limit finishes any migration left and grows (eagerly below {@code incrementalFrom}).
   */
  final void slowInsert() {
    int n = arraySize + oldSize;
    int cap = HashMix.grownCapacity(capacity);
    if (n < maxFill) {
      if (ahead == null && allocateAhead) {
        aheadCapacity = cap;
        ahead = CompletableFuture.supplyAsync(new AheadAllocation<>(this, cap));
      }
      return;
    }
    if (oldCapacity != 0) {
      int before = lastMigrationWork;
      migrate(Integer.MAX_VALUE);
      lastMigrationWork += before;
    }
    if (capacity < incrementalFrom) {
      rehash(cap);
      return;
    }
    T next = takeAhead(cap);
    oldCapacity = capacity;
    oldSize = arraySize;
    cursor = 0;
    install(next);
    resetTo(cap);
    if (oldSize == 0) {
      endMigration();
    }
  }

  /** The table allocated ahead if it is ready, else one allocated now. */
  private T takeAhead(int cap) {
    CompletableFuture<T> f = ahead;
    ahead = null;
    if (f != null && aheadCapacity == cap) {
      try {
        T t = f.getNow(null);
        if (t != null) {
          return t;
        }
      } catch (CompletionException | CancellationException e) {
        // the allocation failed on the pool (say, out of memory): try it here, where a failure propagates
      }
      f.cancel(false);
    }
    return newTable(cap);
  }

  /** Waits until the table being allocated ahead, if any, is ready (for tests of the hand-over). */
  final void awaitAhead() {
    CompletableFuture<T> f = ahead;
    if (f != null) {
      f.join();
    }
  }

  /** Heap bytes of the table requested ahead (counted from the request on), or 0. */
  final long aheadBytes() {
    return ahead == null ? 0 : tableBytes(aheadCapacity);
  }

  /**
   * Moves old-table slots at the cursor into the new table, {@code budget} units at most. A move shifts
   * later entries back into the cursor's slot, never below it (slots below the cursor are empty and nothing
   * is inserted into the old table), so one pass of the cursor drains the table, in the old slot order.
   */
  final void migrate(int budget) {
    int work = 0;
    while (work < budget && cursor < oldCapacity) {
      if (moveOld(cursor)) {
        arraySize++;
        oldSize--;
      } else {
        cursor++;
      }
      work++;
    }
    lastMigrationWork = work;
    if (cursor >= oldCapacity) {
      if (oldSize != 0) {
        throw new IllegalStateException("migration left " + oldSize + " entries behind");
      }
      endMigration();
    }
  }

  private void endMigration() {
    oldCapacity = 0;
    oldSize = 0;
    cursor = 0;
    dropOld();
  }

  /** Copies this bookkeeping into {@code c} (a deep copy's counters; a table requested ahead is not kept). */
  final void copyBookkeepingTo(GrowingTable<T> c) {
    c.capacity = capacity;
    c.maxFill = maxFill;
    c.arraySize = arraySize;
    c.slowFrom = slowFrom;
    c.oldCapacity = oldCapacity;
    c.oldSize = oldSize;
    c.cursor = cursor;
  }

  /** Thread-safe (reads only final fields): allocates a map's next table on the common pool. */
  private static final class AheadAllocation<T> implements Supplier<T> {
    private final GrowingTable<T> map;
    private final int cap;

    AheadAllocation(GrowingTable<T> map, int cap) {
      this.map = map;
      this.cap = cap;
    }

    @Override
    public T get() {
      return map.newTable(cap);
    }
  }

  /** Thread-safe (stateless): the class-load warm-up's task. */
  private static final class Warmup implements Supplier<Boolean> {
    @Override
    public Boolean get() {
      return Boolean.TRUE;
    }
  }

  /** A new, empty table of {@code cap} slots; runs on the common pool too, so it must read no state. */
  abstract T newTable(int cap);

  /** Heap bytes of a table of {@code cap} slots. */
  abstract long tableBytes(int cap);

  /** The current table becomes the old one and {@code next} the current one. */
  abstract void install(T next);

  /** Moves the old table's entry at {@code slot} into the new table if there is one; returns whether. */
  abstract boolean moveOld(int slot);

  /** Drops the drained old table. */
  abstract void dropOld();

  /** The eager growth step to {@code cap} slots: every entry re-placed, in slot order, within this call. */
  abstract void rehash(int cap);
}
