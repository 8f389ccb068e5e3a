package dev.kvrelay.benchmarks;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.PackedBucket;
import dev.kvrelay.ckf.cbi1.AssembledSnapshot;
import dev.kvrelay.ckf.cbi1.SnapshotAssembly;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Full-snapshot streaming over loopback gRPC: one operation is a new {@code SubscribeKvPool} call from a
 * {@link RelayGrpcClient} (default inbound queue bound 2) to a {@code RelayGrpcServer} over a relay whose pool has
 * {@code buckets} buckets (expected_unique_blocks = 2·B), polling every SNAPSHOT_CHUNK frame (CBI1, up to 2^19
 * buckets = 4 MiB each) and assembling them with {@link SnapshotAssembly} into a dense {@code long[B]}, then closing
 * the call. The time includes the admission chain, the pool actor's barrier snapshot, CBI1 encoding, protobuf, HTTP/2
 * flow control and the consumer's decoding. Fixture: {@link WanRelayFixture}, filled with 2^17
 * blocks through the event plane (paced at 50 000 blocks/s); the setup checks an assembled snapshot holds exactly that many fingerprints.
 *
 * <p>Scores: {@code streamSnapshot} in snapshots/s; the auxiliary counter {@code snapshotBytes} in CBI1 payload
 * bytes/s (divide by 10^6 for MB/s; the snapshot is dense: 8·B bytes of words plus 64 bytes per chunk).
 */
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
public class SnapshotStreamBenchmark {

  /** Not thread-safe: confined to the benchmark thread. The relay, its server and a connected client. */
  @State(Scope.Benchmark)
  public static class Relay {
    /** B: 2^19 (the default, E = 2^20) and 2^24. */
    @Param({"524288", "16777216"})
    public int buckets;

    WanRelayFixture fixture;
    CkfFormat format;
    /** Blocks stored before measuring (the snapshot is dense: its size does not depend on occupancy). */
    static final long FILL_BLOCKS = 1 << 17;
    /** Block events per second of the fill. */
    static final long FILL_RATE = 50_000;

    long filledBlocks;
    int subscribers;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      fixture = new WanRelayFixture(2L * buckets, RelayGrpcClient.DEFAULT_INBOUND_QUEUE_BOUND,
          RelayConfigKey.PUBLICATION_QUEUE_CAPACITY.defaultValue());
      format = fixture.pool.producer().ckfFormat();
      if (format.bucketCount() != buckets) {
        throw new IllegalStateException("E = 2B should give B = " + buckets + ", got " + format.bucketCount());
      }
      // Paced: the engine drops events when its pool mailbox is full (counted), and a dropped event never comes back.
      long events = FILL_BLOCKS / WanRelayFixture.BLOCKS;
      long t = System.nanoTime();
      double interval = WanRelayFixture.BLOCKS * 1e9 / FILL_RATE;
      for (long s = 0; s < events; s++) {
        long at = t + (long) (s * interval);
        while (System.nanoTime() < at) {
          LockSupport.parkNanos(50_000);
        }
        fixture.publishStored(s);
      }
      filledBlocks = events * WanRelayFixture.BLOCKS;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      long occupied;
      do {
        occupied = occupancy(snapshot(this, null));
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("snapshot holds " + occupied + " fingerprints, filled " + filledBlocks
              + "; engine " + fixture.engine.stats());
        }
      } while (occupied != filledBlocks);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      fixture.close();
    }
  }

  /** Not thread-safe: confined to the benchmark thread. CBI1 payload bytes streamed (JMH reports them per second). */
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class Bytes {
    public long snapshotBytes;

    @Setup(Level.Iteration)
    public void reset() {
      snapshotBytes = 0;
    }
  }

  /** One subscription: every chunk streamed and assembled; returns the assembled words. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public long[] streamSnapshot(Relay r, Bytes bytes) throws Exception {
    return snapshot(r, bytes);
  }

  static long[] snapshot(Relay r, @Nullable Bytes bytes) throws Exception {
    RelayStream<PoolFrame> stream = WireSources.of(r.fixture.client).subscribePool(r.fixture.pool.poolId(),
        r.fixture.pool.producer(), "snapshot-bench-" + r.subscribers++).get(60, TimeUnit.SECONDS);
    try {
      SnapshotAssembly assembly = new SnapshotAssembly(r.format);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (true) {
        PoolFrame f = stream.poll(1, TimeUnit.SECONDS);
        if (f == null) {
          if (System.nanoTime() > deadline || stream.isFinished()) {
            throw new IllegalStateException("snapshot incomplete within 60 s (finished " + stream.isFinished() + ")");
          }
          continue;
        }
        if (f.kind() != PoolFrame.Kind.SNAPSHOT_CHUNK) {
          throw new IllegalStateException("expected only snapshot chunks, got " + f);
        }
        if (bytes != null) {
          bytes.snapshotBytes += f.payload().length;
        }
        Optional<AssembledSnapshot> done = assembly.accept(f.payload());
        if (done.isPresent()) {
          return done.get().words();
        }
      }
    } finally {
      stream.close();
    }
  }

  static long occupancy(long[] words) {
    long n = 0;
    for (long w : words) {
      n += PackedBucket.occupancy(w);
    }
    return n;
  }
}
