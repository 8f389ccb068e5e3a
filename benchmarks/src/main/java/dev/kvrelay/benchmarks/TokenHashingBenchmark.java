package dev.kvrelay.benchmarks;

import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.ckf.hashing.HashingInputException;
import dev.kvrelay.ckf.hashing.MultimodalBlockHashes;
import dev.kvrelay.ckf.hashing.SequenceHash;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
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
 * Query-side hashing of one request: token block hashes (u32 LE windows, XXH3 with the salt seed) and
 * the canonical chain. Score = requests per second; divide by blocks for a per-block figure.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class TokenHashingBenchmark {
  @Param({"16", "64"})
  int blockSize;

  @Param({"64"})
  int blocks;

  @Param({"DYNAMO_STANDARD_V1", "DYNAMO_EAGLE_V1"})
  KvQueryHashFormat format;

  int[] tokens;
  long[] out;
  long[] blockHashes;
  TokenBlockHasher hasher;

  @Setup
  public void setUp() throws HashingInputException {
    SplittableRandom r = new SplittableRandom(7);
    tokens = new int[blockSize * blocks + 1];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = r.nextInt(150_000);
    }
    out = new long[blocks];
    blockHashes = new long[blocks];
    hasher = TokenBlockHasher.create(format, blockSize);
    hasher.blockHashes(tokens, blockHashes);
  }

  /** Token windows → block hashes → canonical sequence hashes for one request. */
  @Benchmark
  public long requestSequenceHashes() throws HashingInputException {
    hasher.sequenceHashes(tokens, 0, tokens.length, MultimodalBlockHashes.NONE, out, 0);
    return out[blocks - 1];
  }

  /** The canonical chain alone over precomputed block hashes. */
  @Benchmark
  public long chainOnly() throws HashingInputException {
    SequenceHash.chain(blockHashes, 0, blocks, out, 0);
    return out[blocks - 1];
  }
}
