package dev.kvrelay.ckf.producer;

import java.util.Arrays;

/**
 * Not thread-safe: owned by the pool actor and refilled for every event. A reusable, mutable Stored
 * event for one member: optional parent external id, optional start position, and blocks of
 * (external block id, tokens hash); it grows its arrays only when a larger event arrives.
 */
public final class StoredBatch {
  private long workerId;
  private int dpRank;
  private boolean hasParent;
  private long parentHash;
  private boolean hasStartPosition;
  private long startPosition;
  private long[] externalHashes;
  private long[] tokensHashes;
  private int size;

  /** An empty batch with room for 64 blocks. */
  public StoredBatch() {
    this(64);
  }

  /** An empty batch with room for {@code capacity} blocks before growing. */
  public StoredBatch(int capacity) {
    int cap = Math.max(1, capacity);
    externalHashes = new long[cap];
    tokensHashes = new long[cap];
  }

  /** Clears the batch and addresses it to member {@code (workerId, dpRank)}. */
  public StoredBatch reset(long workerId, int dpRank) {
    this.workerId = workerId;
    this.dpRank = dpRank;
    this.hasParent = false;
    this.parentHash = 0;
    this.hasStartPosition = false;
    this.startPosition = 0;
    this.size = 0;
    return this;
  }

  /** Sets the parent's external (engine) block id. */
  public StoredBatch parent(long parentExternalHash) {
    this.hasParent = true;
    this.parentHash = parentExternalHash;
    return this;
  }

  /** Sets the absolute position of the first block (unsigned). */
  public StoredBatch startPosition(long position) {
    this.hasStartPosition = true;
    this.startPosition = position;
    return this;
  }

  /** Appends a block: its external (engine) id and its {@code tokens_hash}. */
  public StoredBatch addBlock(long externalHash, long tokensHash) {
    if (size == externalHashes.length) {
      int grown = Math.max(size + 1, size + (size >>> 1));
      externalHashes = Arrays.copyOf(externalHashes, grown);
      tokensHashes = Arrays.copyOf(tokensHashes, grown);
    }
    externalHashes[size] = externalHash;
    tokensHashes[size] = tokensHash;
    size++;
    return this;
  }

  public long workerId() {
    return workerId;
  }

  public int dpRank() {
    return dpRank;
  }

  public boolean hasParent() {
    return hasParent;
  }

  /** The parent's external id; meaningful only if {@link #hasParent()}. */
  public long parentHash() {
    return parentHash;
  }

  public boolean hasStartPosition() {
    return hasStartPosition;
  }

  /** The start position; meaningful only if {@link #hasStartPosition()}. */
  public long startPosition() {
    return startPosition;
  }

  /** Number of blocks. */
  public int size() {
    return size;
  }

  long rawExternalHash(int i) {
    return externalHashes[i];
  }

  long rawTokensHash(int i) {
    return tokensHashes[i];
  }

  /** External id of block {@code i} ({@code 0 <= i < size()}). */
  public long externalHash(int i) {
    return externalHashes[checkIndex(i)];
  }

  /** Tokens hash of block {@code i} ({@code 0 <= i < size()}). */
  public long tokensHash(int i) {
    return tokensHashes[checkIndex(i)];
  }

  private int checkIndex(int i) {
    if (i < 0 || i >= size) {
      throw new IllegalArgumentException("block index " + i + " outside 0.." + size);
    }
    return i;
  }
}
