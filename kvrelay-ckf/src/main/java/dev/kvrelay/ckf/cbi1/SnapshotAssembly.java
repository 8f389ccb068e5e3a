package dev.kvrelay.ckf.cbi1;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException.Reason;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the one stream that feeds it. Reassembles the chunks of one CBI1
 * snapshot into a dense table ({@code ckf-cbi1.md} §6.6 "Snapshot assembly").
 *
 * <ul>
 *   <li>Chunk 0 starts a new assembly (dropping any unfinished one) and captures epoch and chunk count.
 *   <li>Every chunk must be the next index, with the same chunk count and epoch, {@code bucket_count == B}
 *       and {@code bucket_offset} equal to the next uncovered bucket; else {@code CHUNK_SEQUENCE}.
 *   <li>A non-chunk frame is {@code CHUNK_SEQUENCE}.
 *   <li>After the last chunk the chunks must cover exactly B buckets; else {@code INCOMPLETE_COVERAGE}.
 * </ul>
 *
 * <p>Every failure (including a frame that fails to decode, when bytes are given) resets the assembly:
 * the unfinished snapshot's progress is dropped and only a new chunk 0 can start again. A completed
 * {@link AssembledSnapshot} hands its table over and is never written again.
 *
 * <p>Memory is bounded by the expected format, never by frame contents: one table of B words (B from
 * the {@link CkfFormat} given at construction), allocated at the first chunk 0 and reused across failed
 * attempts until a snapshot completes.
 */
public final class SnapshotAssembly {
  private final CkfFormat expected;
  private final int bucketCount;

  private long @Nullable [] table;
  private boolean active;
  private long epoch;
  private long chunkCount;
  private long nextChunk;
  private long nextBucket;

  /** An idle assembly for snapshots of the given format. */
  public SnapshotAssembly(CkfFormat expected) {
    this.expected = expected;
    this.bucketCount = expected.bucketCount();
  }

  /** The format frames are decoded against. */
  public CkfFormat expected() {
    return expected;
  }

  /**
   * Decodes {@code frame} against the expected format and feeds it; see {@link #accept(Cbi1Frame)}.
   * A decoding failure resets the assembly and is rethrown with its own reason.
   */
  public Optional<AssembledSnapshot> accept(byte[] frame) throws Cbi1DecodeException {
    return accept(frame, 0, frame.length);
  }

  /**
   * Decodes {@code frame[off, off+len)} and feeds it; see {@link #accept(byte[])}.
   *
   * @throws IndexOutOfBoundsException only if {@code off}/{@code len} do not describe a range of
   *     {@code frame}; the assembly is unchanged then
   */
  public Optional<AssembledSnapshot> accept(byte[] frame, int off, int len) throws Cbi1DecodeException {
    Objects.checkFromIndexSize(off, len, frame.length);
    Cbi1Frame decoded;
    try {
      decoded = Cbi1Decoder.decode(expected, frame, off, len);
    } catch (Cbi1DecodeException e) {
      reset();
      throw e;
    }
    return accept(decoded);
  }

  /**
   * Feeds one decoded frame.
   *
   * @return the completed snapshot after its last chunk, else empty
   * @throws Cbi1DecodeException {@code CHUNK_SEQUENCE} or {@code INCOMPLETE_COVERAGE}; the assembly is
   *     reset
   */
  public Optional<AssembledSnapshot> accept(Cbi1Frame frame) throws Cbi1DecodeException {
    if (!(frame instanceof Cbi1Frame.SnapshotChunk chunk)) {
      throw fail(Reason.CHUNK_SEQUENCE, "a delta frame inside a snapshot");
    }
    if (chunk.chunkIndex() == 0) {
      reset();
      active = true;
      epoch = chunk.epoch();
      chunkCount = chunk.chunkCount();
    }
    if (!active) {
      throw fail(Reason.CHUNK_SEQUENCE, "chunk " + chunk.chunkIndex() + " without a preceding chunk 0");
    }
    String mismatch = mismatch(chunk);
    if (mismatch != null) {
      throw fail(Reason.CHUNK_SEQUENCE, mismatch);
    }
    long[] words = chunk.words();
    long[] t = table;
    if (t == null) {
      t = new long[bucketCount];
      table = t;
    }
    System.arraycopy(words, 0, t, (int) nextBucket, words.length);
    nextBucket += words.length;
    nextChunk++;
    if (nextChunk < chunkCount) {
      return Optional.empty();
    }
    if (nextBucket != bucketCount) {
      throw fail(Reason.INCOMPLETE_COVERAGE,
          "chunks covered " + nextBucket + " of " + bucketCount + " buckets");
    }
    AssembledSnapshot done = new AssembledSnapshot(epoch, t);
    table = null; // handed over: the next assembly allocates its own
    reset();
    return Optional.of(done);
  }

  /** Drops any unfinished snapshot. */
  public void reset() {
    active = false;
    epoch = 0;
    chunkCount = 0;
    nextChunk = 0;
    nextBucket = 0;
  }

  /** True between an accepted chunk 0 and completion or failure. */
  public boolean inProgress() {
    return active;
  }

  /** The chunk index expected next (0 when idle). */
  public long nextChunk() {
    return nextChunk;
  }

  /** The first bucket not yet covered (0 when idle). */
  public long nextBucket() {
    return nextBucket;
  }

  private @Nullable String mismatch(Cbi1Frame.SnapshotChunk c) {
    if (c.chunkIndex() != nextChunk) {
      return "chunk " + c.chunkIndex() + ", expected " + nextChunk;
    }
    if (c.chunkCount() != chunkCount) {
      return "chunk count " + c.chunkCount() + ", expected " + chunkCount;
    }
    if (c.epoch() != epoch) {
      return "epoch " + Long.toUnsignedString(c.epoch()) + ", expected " + Long.toUnsignedString(epoch);
    }
    if (c.header().bucketCount() != bucketCount) {
      return "bucket count " + c.header().bucketCount() + ", expected " + bucketCount;
    }
    if (c.bucketOffset() != nextBucket) {
      return "bucket offset " + c.bucketOffset() + ", expected " + nextBucket;
    }
    if (c.words().length > bucketCount - nextBucket) {
      return c.words().length + " words overrun bucket count " + bucketCount + " at " + nextBucket;
    }
    return null;
  }

  private Cbi1DecodeException fail(Reason reason, String detail) {
    reset();
    return new Cbi1DecodeException(reason, detail);
  }
}
