package dev.kvrelay.benchmarks;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.AssembledSnapshot;
import dev.kvrelay.ckf.cbi1.Cbi1;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException;
import dev.kvrelay.ckf.cbi1.Cbi1Decoder;
import dev.kvrelay.ckf.cbi1.Cbi1EncodeException;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.cbi1.Cbi1Frame;
import dev.kvrelay.ckf.cbi1.SnapshotAssembly;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * CBI1 codec throughput ({@code ckf-cbi1.md} §6): whole snapshots and single deltas, encoded into a
 * reused array and decoded (snapshots through {@link SnapshotAssembly}).
 *
 * <p>One op of the snapshot benchmarks is one full snapshot of B words, i.e. all
 * {@code ceil(B / 524 288)} chunk frames. Bytes per op ({@code 64 · chunks + 8 · B}):
 *
 * <ul>
 *   <li>B = 524 288 (1 chunk): 4 194 368 bytes;
 *   <li>B = 16 777 216 (32 chunks): 134 219 776 bytes.
 * </ul>
 *
 * One op of the delta benchmarks is one delta frame of {@code images} images, {@code 60 + 12 · images}
 * bytes: 252 (16), 3 132 (256), 49 212 (4096). Bytes/s = ops/s × bytes per op; {@link #setUp()} checks
 * these sizes against the encoder.
 *
 * <p>The table is filled at about 80 % slot occupancy: each of the 4 slots of every bucket holds a
 * uniformly random non-zero 16-bit fingerprint with probability 0.8. Delta images are distinct random
 * buckets in random (first-touch) order carrying that table's words. The snapshot benchmarks do not
 * depend on {@code images}, and the delta benchmarks depend on B only through the bucket index values;
 * JMH still runs every combination (one @State per file), which gives repeat measurements.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class Cbi1Benchmark {
  static final long DC_ID = 0x5EED_DC1DL;
  static final long SEQUENCE = 1_000_000L;
  static final double SLOT_OCCUPANCY = 0.8;

  /** Bucket count B: the default pool size (one chunk) and the maximum 2^24 (32 chunks). */
  @Param({"524288", "16777216"})
  int bucketCount;

  /** Images per delta. */
  @Param({"16", "256", "4096"})
  int images;

  CkfFormat format;
  long[] table;
  byte[] chunkBuffer;
  byte[][] snapshotFrames;
  SnapshotAssembly assembly;

  int[] deltaBuckets;
  long[] deltaWords;
  byte[] deltaBuffer;
  byte[] deltaFrame;

  @Setup
  public void setUp() throws Cbi1EncodeException, Cbi1DecodeException {
    SplittableRandom r = new SplittableRandom(0xCB11);
    format = CkfFormat.withDefaultSeed(bucketCount);
    table = new long[bucketCount];
    for (int b = 0; b < bucketCount; b++) {
      table[b] = randomWord(r);
    }

    chunkBuffer = new byte[Cbi1.MAX_FRAME_BYTES];
    List<byte[]> frames = Cbi1Encoder.encodeSnapshot(format, DC_ID, SEQUENCE, table);
    snapshotFrames = frames.toArray(new byte[0][]);
    long snapshotBytes = 0;
    for (byte[] f : snapshotFrames) {
      snapshotBytes += f.length;
    }
    long documented = 64L * Cbi1.chunkCount(bucketCount) + 8L * bucketCount;
    if (snapshotBytes != documented) {
      throw new IllegalStateException(snapshotBytes + " snapshot bytes, documented " + documented);
    }
    assembly = new SnapshotAssembly(format);
    AssembledSnapshot check = decodeSnapshot();
    if (!Arrays.equals(check.words(), table)) {
      throw new IllegalStateException("snapshot round trip differs");
    }

    deltaBuckets = distinctBuckets(r, images, bucketCount);
    deltaWords = new long[images];
    for (int i = 0; i < images; i++) {
      deltaWords[i] = table[deltaBuckets[i]];
    }
    deltaBuffer = new byte[Cbi1.deltaFrameLength(images)];
    deltaFrame = Cbi1Encoder.encodeDelta(format, DC_ID, SEQUENCE - 1, SEQUENCE, deltaBuckets, deltaWords, images);
    if (deltaFrame.length != 60 + 12 * images) {
      throw new IllegalStateException(deltaFrame.length + " delta bytes for " + images + " images");
    }
    Cbi1Frame.Delta delta = (Cbi1Frame.Delta) Cbi1Decoder.decode(format, deltaFrame);
    if (!Arrays.equals(delta.buckets(), deltaBuckets) || !Arrays.equals(delta.words(), deltaWords)) {
      throw new IllegalStateException("delta round trip differs");
    }
  }

  /** Each slot independently holds a random fingerprint in [1, 65535] with probability 0.8. */
  static long randomWord(SplittableRandom r) {
    long w = 0;
    for (int s = 0; s < 4; s++) {
      if (r.nextDouble() < SLOT_OCCUPANCY) {
        w |= (long) (1 + r.nextInt(0xFFFF)) << (16 * s);
      }
    }
    return w;
  }

  /** {@code n} distinct buckets in {@code [0, b)}, in random order (n is far below b). */
  static int[] distinctBuckets(SplittableRandom r, int n, int b) {
    int[] out = new int[n];
    int filled = 0;
    while (filled < n) {
      int candidate = r.nextInt(b);
      boolean seen = false;
      for (int i = 0; i < filled && !seen; i++) {
        seen = out[i] == candidate;
      }
      if (!seen) {
        out[filled++] = candidate;
      }
    }
    return out;
  }

  /**
   * Snapshot encode: every chunk of the table into one reused {@link Cbi1#MAX_FRAME_BYTES} array
   * (header, body copy, XXH3 body checksum). One op = one full snapshot (bytes per op in the class doc).
   */
  @Benchmark
  public long snapshotEncode() throws Cbi1EncodeException {
    long acc = 0;
    int chunks = snapshotFrames.length;
    for (int c = 0; c < chunks; c++) {
      acc += Cbi1Encoder.encodeSnapshotChunkInto(format, DC_ID, SEQUENCE, table, c, chunkBuffer, 0);
      acc += chunkBuffer[44]; // the checksum's low byte: depends on the whole chunk
    }
    return acc;
  }

  /**
   * Snapshot decode + assembly: every chunk frame validated (checksum included), decoded into its own
   * word array and copied into a fresh B-word table. One op = one full snapshot.
   */
  @Benchmark
  public AssembledSnapshot snapshotDecodeAssemble() throws Cbi1DecodeException {
    return decodeSnapshot();
  }

  private AssembledSnapshot decodeSnapshot() throws Cbi1DecodeException {
    Optional<AssembledSnapshot> done = Optional.empty();
    for (byte[] frame : snapshotFrames) {
      done = assembly.accept(frame);
    }
    return done.orElseThrow(() -> new IllegalStateException("snapshot incomplete"));
  }

  /** Delta encode of {@code images} images into a reused array. One op = one delta frame. */
  @Benchmark
  public int deltaEncode() throws Cbi1EncodeException {
    int len = Cbi1Encoder.encodeDeltaInto(
        format, DC_ID, SEQUENCE - 1, SEQUENCE, deltaBuckets, deltaWords, images, deltaBuffer, 0);
    return len + deltaBuffer[44];
  }

  /** Delta decode (validation, checksum, two image arrays). One op = one delta frame. */
  @Benchmark
  public Cbi1Frame deltaDecode() throws Cbi1DecodeException {
    return Cbi1Decoder.decode(format, deltaFrame);
  }
}
