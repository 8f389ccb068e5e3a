package dev.kvrelay.benchmarks;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.hashing.Xxh3;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/** XXH3 entry points and CKF addressing: the per-block hashing cost under every other operation. */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AddressingBenchmark {
  static final int N = 4096;

  long[] hashes;
  CkfAddressing addressing;
  Xxh3 chain;

  @Setup
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    hashes = new long[N];
    for (int i = 0; i < N; i++) {
      hashes[i] = r.nextLong();
    }
    addressing = CkfAddressing.of(CkfFormat.withDefaultSeed(524_288));
    chain = Xxh3.withSeed(1337);
  }

  /** prepare(): XXH3 of 8 bytes + delta table lookup. */
  @Benchmark
  @OperationsPerInvocation(N)
  public void prepare(Blackhole bh) {
    long acc = 0;
    for (long h : hashes) {
      acc += addressing.prepare(h);
    }
    bh.consume(acc);
  }

  /** One canonical chain step: XXH3 of 16 bytes with seed 1337. */
  @Benchmark
  @OperationsPerInvocation(N)
  public void chainStep(Blackhole bh) {
    long parent = 0;
    for (long h : hashes) {
      parent = chain.hashLongLong(parent, h);
    }
    bh.consume(parent);
  }
}
