package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.hashing.Xxh3;

/**
 * Stateless and thread-safe (and allocation-free) canonical Dynamo sequence hash that keys the CKF.
 *
 * <p>{@code root(t) = t}; {@code child(p, t) = XXH3_64(LE64(p) ‖ LE64(t), seed 1337)}.
 */
public final class CanonicalHash {
  /** The XXH3 seed of the sequence-hash chain ({@code XXH3_SEED}). */
  public static final long SEQUENCE_SEED = 1337L;

  private static final Xxh3 CHAIN = Xxh3.withSeed(SEQUENCE_SEED);

  private CanonicalHash() {}

  /** The canonical hash of a sequence's first block: its {@code tokens_hash}. */
  public static long root(long tokensHash) {
    return tokensHash;
  }

  /** The canonical hash of a block whose parent has canonical hash {@code parent}. */
  public static long child(long parent, long tokensHash) {
    return CHAIN.hashLongLong(parent, tokensHash);
  }
}
