package dev.kvrelay.ckf.hashing;

import com.dynatrace.hash4j.hashing.HashStream64;
import dev.kvrelay.api.KvQueryHashFormat;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Not thread-safe (it owns a reusable XXH3 stream, so use one instance per thread): local block hashes
 * ({@code LocalBlockHash}) and canonical sequence hashes of a request's tokens, for one pool's query
 * semantics.
 *
 * <p>Tokens are unsigned 32-bit values held in {@code int}s and hashed as their little-endian bytes with
 * the {@link BlockHashSalt} seed ({@code runtime-inputs.md} §7.1):
 *
 * <ul>
 *   <li>{@link KvQueryHashFormat#DYNAMO_STANDARD_V1}: non-overlapping windows of {@code blockSize} tokens
 *       from index 0; a partial tail is dropped, so there are {@code n / blockSize} blocks; block size 0
 *       yields no blocks.
 *   <li>{@link KvQueryHashFormat#DYNAMO_EAGLE_V1}: windows of {@code blockSize + 1} tokens with stride
 *       {@code blockSize}, so block {@code i} covers tokens {@code [i·bs, i·bs + bs]} and there are
 *       {@code (n − 1) / blockSize} blocks ({@code n == 0} gives none); the block size must not be 0.
 * </ul>
 *
 * <p>A block with multimodal objects hashes its window's token bytes followed by the block's
 * {@code mm_hash} values, sorted ascending (unsigned), each as 8 little-endian bytes. The hashing methods
 * that write into caller arrays do not allocate.
 */
public final class TokenBlockHasher {
  private final KvQueryHashFormat format;
  private final int blockSize;
  private final BlockHashSalt salt;
  private final HashStream64 stream;
  private final Xxh3 oneShot;
  /** Little-endian image of one window for the one-shot path; grown on demand, never shrunk. */
  private byte[] scratch = new byte[0];
  private static final VarHandle LE_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  /** Windows up to this many bytes hash through the one-shot path (faster than the stream for short input). */
  private static final int ONE_SHOT_MAX_BYTES = 1 << 16;

  private TokenBlockHasher(KvQueryHashFormat format, int blockSize, BlockHashSalt salt) {
    this.format = format;
    this.blockSize = blockSize;
    this.salt = salt;
    this.stream = Xxh3.withSeed(salt.seed()).newStream();
    this.oneShot = Xxh3.withSeed(salt.seed());
  }

  /**
   * A hasher for one pool's query semantics.
   *
   * @param blockSize the pool's {@code kv_block_size}, a u32 held in an {@code int} as
   *     {@link dev.kvrelay.api.KvQuerySemantics#kvBlockSize()} holds it: 0 yields no blocks with the
   *     standard format; from 2^31 up (negative as an {@code int}) it exceeds every token count and yields
   *     no blocks
   * @throws HashingInputException {@code BLOCK_SIZE_INVALID} for block size 0 with EAGLE
   */
  public static TokenBlockHasher create(KvQueryHashFormat format, int blockSize, BlockHashSalt salt)
      throws HashingInputException {
    if (blockSize == 0 && format == KvQueryHashFormat.DYNAMO_EAGLE_V1) {
      throw new HashingInputException(
          HashingInputException.Reason.BLOCK_SIZE_INVALID,
          "block size " + Integer.toUnsignedString(blockSize) + " is not valid for " + format);
    }
    return new TokenBlockHasher(format, blockSize, salt);
  }

  /** An unsalted hasher ({@link BlockHashSalt#NONE}); see {@link #create(KvQueryHashFormat, int, BlockHashSalt)}. */
  public static TokenBlockHasher create(KvQueryHashFormat format, int blockSize)
      throws HashingInputException {
    return create(format, blockSize, BlockHashSalt.NONE);
  }

  /** The window layout this hasher uses. */
  public KvQueryHashFormat format() {
    return format;
  }

  /** The pool's {@code kv_block_size} (u32 bits; read it with {@link Integer#toUnsignedLong(int)}). */
  public int blockSize() {
    return blockSize;
  }

  /** The salt whose seed the block hashes use. */
  public BlockHashSalt salt() {
    return salt;
  }

  /** The number of block hashes for {@code tokenCount} tokens (0 for a negative count). */
  public int blockCount(int tokenCount) {
    // blockSize < 0 is a u32 of at least 2^31, more than any int token count: no complete window.
    if (tokenCount <= 0 || blockSize <= 0) {
      return 0;
    }
    return format == KvQueryHashFormat.DYNAMO_EAGLE_V1
        ? (tokenCount - 1) / blockSize
        : tokenCount / blockSize;
  }

  /**
   * Writes the block hashes of {@code tokens[off, off+len)} into {@code out} from {@code outOff}, without
   * allocating.
   *
   * @param multimodal per-block {@code mm_hash} values, indexed by block number within this range
   * @return the number of hashes written, {@link #blockCount(int) blockCount(len)}
   * @throws HashingInputException {@code INPUT_RANGE_INVALID} if the token range lies outside
   *     {@code tokens} or {@code outOff} outside {@code out}; {@code OUTPUT_TOO_SMALL} if {@code out}
   *     lacks room. Nothing is written then.
   */
  public int blockHashes(
      int[] tokens, int off, int len, MultimodalBlockHashes multimodal, long[] out, int outOff)
      throws HashingInputException {
    Ranges.checkInput(tokens.length, off, len);
    int count = blockCount(len);
    Ranges.checkOutput(out.length, outOff, count);
    writeBlockHashes(tokens, off, count, multimodal, out, outOff);
    return count;
  }

  /**
   * Writes the block hashes of all of {@code tokens} into {@code out} from index 0, without allocating.
   *
   * @return the number of hashes written
   * @throws HashingInputException {@code OUTPUT_TOO_SMALL} if {@code out} is shorter than
   *     {@link #blockCount(int) blockCount(tokens.length)}; nothing is written then
   */
  public int blockHashes(int[] tokens, long[] out) throws HashingInputException {
    return blockHashes(tokens, 0, tokens.length, MultimodalBlockHashes.NONE, out, 0);
  }

  /** The block hashes of all of {@code tokens}, in a new array. */
  public long[] blockHashes(int[] tokens) {
    return blockHashes(tokens, MultimodalBlockHashes.NONE);
  }

  /** The block hashes of all of {@code tokens} with per-block multimodal hashes, in a new array. */
  public long[] blockHashes(int[] tokens, MultimodalBlockHashes multimodal) {
    long[] out = new long[blockCount(tokens.length)];
    writeBlockHashes(tokens, 0, out.length, multimodal, out, 0);
    return out;
  }

  /**
   * Writes the canonical sequence hashes (block hashes, then the {@link SequenceHash} chain) of
   * {@code tokens[off, off+len)} into {@code out} from {@code outOff}, without allocating.
   *
   * @return the number of hashes written, {@link #blockCount(int) blockCount(len)}
   * @throws HashingInputException as {@link #blockHashes(int[], int, int, MultimodalBlockHashes, long[],
   *     int)}; nothing is written then
   */
  public int sequenceHashes(
      int[] tokens, int off, int len, MultimodalBlockHashes multimodal, long[] out, int outOff)
      throws HashingInputException {
    int count = blockHashes(tokens, off, len, multimodal, out, outOff);
    SequenceHash.chainUnchecked(out, outOff, count, out, outOff);
    return count;
  }

  /** The canonical sequence hashes of all of {@code tokens}, in a new array. */
  public long[] sequenceHashes(int[] tokens) {
    return sequenceHashes(tokens, MultimodalBlockHashes.NONE);
  }

  /** The canonical sequence hashes of all of {@code tokens} with multimodal hashes, in a new array. */
  public long[] sequenceHashes(int[] tokens, MultimodalBlockHashes multimodal) {
    long[] out = blockHashes(tokens, multimodal);
    SequenceHash.chainUnchecked(out, 0, out.length, out, 0);
    return out;
  }

  /** Hashes {@code count} windows starting at {@code off}; ranges already validated. */
  private void writeBlockHashes(
      int[] tokens, int off, int count, MultimodalBlockHashes multimodal, long[] out, int outOff) {
    if (count == 0) {
      return;
    }
    // Only reached with count > 0, so blockSize < (tokens in range) and blockSize + 1 cannot overflow.
    int window = format == KvQueryHashFormat.DYNAMO_EAGLE_V1 ? blockSize + 1 : blockSize;
    if (multimodal.blockCount() == 0 && window <= ONE_SHOT_MAX_BYTES / Integer.BYTES) {
      int bytes = window * Integer.BYTES;
      if (scratch.length < bytes) {
        scratch = new byte[bytes];
      }
      byte[] buf = scratch;
      for (int block = 0; block < count; block++) {
        int from = off + block * blockSize;
        for (int i = 0; i < window; i++) {
          LE_INT.set(buf, i * Integer.BYTES, tokens[from + i]);
        }
        out[outOff + block] = oneShot.hash(buf, 0, bytes);
      }
      return;
    }
    for (int block = 0; block < count; block++) {
      HashStream64 s = stream.reset();
      s.putInts(tokens, off + block * blockSize, window);
      long[] mm = multimodal.hashesOf(block);
      for (long mmHash : mm) {
        s.putLong(mmHash);
      }
      out[outOff + block] = s.getAsLong();
    }
  }
}
