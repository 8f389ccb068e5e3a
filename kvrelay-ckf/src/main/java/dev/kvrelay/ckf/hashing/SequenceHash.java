package dev.kvrelay.ckf.hashing;

/**
 * Stateless and thread-safe: the canonical Dynamo sequence-hash chain, the CKF key.
 *
 * <p>{@code root(t) = t}; {@code child(parent, t) = XXH3_64(LE64(parent) ‖ LE64(t), seed 1337)}, where
 * {@code t} is a block's local token hash ({@code tokens_hash}). Salts (LoRA, cache namespace) are
 * already inside the block hashes: the chain seed is always {@value #CHAIN_SEED}.
 */
public final class SequenceHash {
  /** The chain seed ({@code XXH3_SEED} upstream). */
  public static final long CHAIN_SEED = 1337L;

  private static final Xxh3 CHAIN = Xxh3.withSeed(CHAIN_SEED);

  private SequenceHash() {}

  /** The sequence hash of a sequence's first block: its local token hash itself. */
  public static long root(long tokensHash) {
    return tokensHash;
  }

  /** The sequence hash of the block with local hash {@code tokensHash} after the block {@code parent}. */
  public static long child(long parent, long tokensHash) {
    return CHAIN.hashLongLong(parent, tokensHash);
  }

  /**
   * Writes the chain over {@code blockHashes[off, off+len)} into {@code out[outOff, outOff+len)} without
   * allocating. {@code out} may be {@code blockHashes} itself when {@code outOff <= off} (in place when
   * equal).
   *
   * @return {@code len}, the number of sequence hashes written
   * @throws HashingInputException {@code INPUT_RANGE_INVALID} if the input range is outside
   *     {@code blockHashes} or the output overlaps input it has not read yet; {@code OUTPUT_TOO_SMALL}
   *     if {@code out} cannot hold {@code len} hashes from {@code outOff}. Nothing is written then.
   */
  public static int chain(long[] blockHashes, int off, int len, long[] out, int outOff)
      throws HashingInputException {
    Ranges.checkInput(blockHashes.length, off, len);
    Ranges.checkOutput(out.length, outOff, len);
    if (out == blockHashes && outOff > off && outOff < off + len) {
      throw new HashingInputException(
          HashingInputException.Reason.INPUT_RANGE_INVALID,
          "chain output overlaps unread input (outOff " + outOff + " > off " + off + ")");
    }
    chainUnchecked(blockHashes, off, len, out, outOff);
    return len;
  }

  /** The chain over all of {@code blockHashes}, in a new array of the same length. */
  public static long[] chain(long[] blockHashes) {
    long[] out = new long[blockHashes.length];
    chainUnchecked(blockHashes, 0, blockHashes.length, out, 0);
    return out;
  }

  /** Chain with ranges already validated; safe in place when {@code out == in && outOff <= off}. */
  static void chainUnchecked(long[] in, int off, int len, long[] out, int outOff) {
    if (len == 0) {
      return;
    }
    long previous = root(in[off]);
    out[outOff] = previous;
    for (int i = 1; i < len; i++) {
      previous = child(previous, in[off + i]);
      out[outOff + i] = previous;
    }
  }
}
