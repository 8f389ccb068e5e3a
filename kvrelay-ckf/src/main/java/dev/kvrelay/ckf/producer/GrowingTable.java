package dev.kvrelay.ckf.producer;

/**
 * Not thread-safe: confined to its map's thread (the pool actor). The growth bookkeeping {@link LongLongMap}
 * and {@link OwnersMap} share: chunked slot addressing, allocation of the next table's chunks ahead of the
 * load limit, the incremental migration cursor and budget, and the eager rehash below
 * {@link #INCREMENTAL_FROM}. A subclass owns the arrays and implements the per-slot hooks.
 *
 * <p>Slots live in chunks of {@code 2^chunkShift} slots (slot {@code s} is element {@code s & chunkMask} of
 * chunk {@code s >>> chunkShift}; the last chunk holds the remainder), so no call allocates one array of
 * the whole table: once the size is within {@link #aheadWindow()} insertions of the load limit, every
 * insertion allocates one chunk of the next table, and by the limit all of them exist. Crossing the limit
 * then only swaps references, and every later insertion or removal moves at most {@code migrationBudget}
 * old slots (a move or a skipped empty slot each count one) into the new table.
 */
abstract class GrowingTable {
  /** Old-table slots one insertion or removal moves at most while migrating. */
  static final int MIGRATION_BUDGET = 128;
  /**
   * The smallest capacity that grows incrementally: below it one full rehash (≤ 16 Ki slots, well under
   * 1 ms) keeps the layout, and so the iteration order and the producer's output, of the eager scheme.
   */
  static final int INCREMENTAL_FROM = 1 << 14;
  /** Slots per chunk, log2: 32 Ki slots, a 256 KiB {@code long[]}, so an insertion allocates ≤ 0.5 MiB. */
  static final int CHUNK_SHIFT = 15;

  final int migrationBudget;
  final int incrementalFrom;
  final int chunkShift;
  final int chunkMask;

  /** Slots in the (new) table. */
  int capacity;
  int maxFill;
  /** Entries in the (new) table's arrays. */
  int arraySize;
  /** The size at which an insertion leaves the fast path: the load limit minus the allocation-ahead window. */
  int slowFrom;
  /** Slots of the old table while migrating, else 0. */
  int oldCapacity;
  int oldSize;
  int cursor;
  /** Chunks of the next table allocated so far. */
  int nextChunks;
  /** Old-table slots the last migrating call moved or skipped (for tests of the per-call bound). */
  int lastMigrationWork;

  /**
   * Moves at most {@code migrationBudget} old slots per mutating call once the capacity is at least
   * {@code incrementalFrom} (smaller tables grow by one full rehash); tests use small values of all three.
   * A growth step leaves room for ~0.225·C insertions before the next and a migration costs ≤ 1.9·C units,
   * so a budget ≥ 9 always finishes in time; with a smaller one, an insertion that reaches the next load
   * limit mid-migration finishes it in that call.
   */
  GrowingTable(int migrationBudget, int incrementalFrom, int chunkShift) {
    if (migrationBudget < 1) {
      throw new IllegalArgumentException("migration budget must be positive: " + migrationBudget);
    }
    if (chunkShift < 3 || chunkShift > 24) {
      throw new IllegalArgumentException("chunk shift out of [3, 24]: " + chunkShift);
    }
    this.migrationBudget = migrationBudget;
    this.incrementalFrom = incrementalFrom;
    this.chunkShift = chunkShift;
    this.chunkMask = (1 << chunkShift) - 1;
  }

  /** Chunks of a table of {@code cap} slots. */
  final int chunkCount(int cap) {
    return ((cap - 1) >>> chunkShift) + 1;
  }

  /** Slots in chunk {@code c} of a table of {@code cap} slots. */
  final int chunkLength(int cap, int c) {
    return Math.min(1 << chunkShift, cap - (c << chunkShift));
  }

  /** Sets the bookkeeping of a fresh, empty (new) table of {@code cap} slots. */
  final void resetTo(int cap) {
    capacity = cap;
    maxFill = HashMix.maxFill(cap);
    arraySize = 0;
    nextChunks = 0;
    slowFrom = cap < incrementalFrom ? maxFill : Math.max(0, maxFill - aheadWindow());
  }

  /** Insertions before the load limit at which allocation ahead starts: one per chunk of the next table. */
  final int aheadWindow() {
    return chunkCount(HashMix.grownCapacity(capacity));
  }

  /** True while entries remain in the old table. */
  final boolean migrating() {
    return oldCapacity != 0;
  }

  /**
   * Before an insertion whose size reached {@link #slowFrom}: allocates one chunk of the next table ahead,
   * or at the load limit finishes any migration left and grows (eagerly below {@code incrementalFrom}).
   */
  final void slowInsert() {
    int n = arraySize + oldSize;
    int cap = HashMix.grownCapacity(capacity);
    if (n < maxFill) {
      if (nextChunks < chunkCount(cap)) {
        if (nextChunks == 0) {
          createNext(cap);
        }
        allocateNextChunk(nextChunks, chunkLength(cap, nextChunks));
        nextChunks++;
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
    if (nextChunks == 0) {
      createNext(cap);
    }
    for (int c = nextChunks, count = chunkCount(cap); c < count; c++) {
      allocateNextChunk(c, chunkLength(cap, c));
    }
    oldCapacity = capacity;
    oldSize = arraySize;
    cursor = 0;
    installNext();
    resetTo(cap);
    if (oldSize == 0) {
      endMigration();
    }
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

  /** Copies this bookkeeping into {@code c} (a deep copy's counters; the next table's chunks are not kept). */
  final void copyBookkeepingTo(GrowingTable c) {
    c.capacity = capacity;
    c.maxFill = maxFill;
    c.arraySize = arraySize;
    c.slowFrom = slowFrom;
    c.oldCapacity = oldCapacity;
    c.oldSize = oldSize;
    c.cursor = cursor;
    c.nextChunks = 0;
  }

  /** Creates the (chunkless) next table of {@code cap} slots. */
  abstract void createNext(int cap);

  /** Allocates chunk {@code c} ({@code length} slots) of the next table. */
  abstract void allocateNextChunk(int c, int length);

  /** The current table becomes the old one and the (fully allocated) next table the current one. */
  abstract void installNext();

  /** Moves the old table's entry at {@code slot} into the new table if there is one; returns whether. */
  abstract boolean moveOld(int slot);

  /** Drops the drained old table. */
  abstract void dropOld();

  /** The eager growth step to {@code cap} slots: every entry re-placed, in slot order, within this call. */
  abstract void rehash(int cap);
}
