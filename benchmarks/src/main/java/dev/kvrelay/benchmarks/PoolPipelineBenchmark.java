package dev.kvrelay.benchmarks;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.actor.PoolActorConfig;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The engine's pool pipeline end to end: router events → {@code PoolActor} → {@code CkfProducer} → publication
 * hub ({@code HubSlot}: mirror, CBI1 delta encoding, fan-out) → in-process subscribers ({@code RelayStream} of
 * {@code PoolFrame}). Fixture: {@link PoolPipelineFixture} (E = 2^20 expected blocks, B = 2^19, publication
 * threshold 16, 16 members, residency held at exactly E mappings by Removed + Stored cycles of 16 blocks).
 *
 * <ul>
 *   <li>{@link #ingestBlocksPerCore}: Throughput on one core. One thread does everything: the actor runs
 *       inline on the benchmark thread ({@link InlineActorScheduler}: the queue is drained right after each
 *       submit, timers ignored, so only the threshold drains). One invocation is 8 cycles (Removed of the
 *       batch stored 64 cycles earlier + Stored of 16 fresh blocks) = 16 events = exactly one threshold drain,
 *       one delta, one frame per subscriber; then every subscriber is polled until empty (payload bytes into
 *       a Blackhole, no decoding). <b>Score unit: block events per second</b> ({@code @OperationsPerInvocation}
 *       = 256 = 128 blocks stored + 128 blocks removed); block lifecycles (one store plus one remove) per
 *       second are half of it. {@code subscribers = 4} shows the fan-out cost.
 *   <li>{@link #publicationLatency}: SampleTime. The actor on its own single-thread executor
 *       ({@link ExecutorActorScheduler}, default 1 ms publication delay, threshold 16); one invocation submits
 *       one Stored event (16 blocks) then Flush and spin-polls the subscriber until the DELTA frame carrying
 *       it arrives. The Removed that keeps residency constant is submitted, flushed and awaited in a
 *       per-invocation setup, outside the measured time.
 *   <li>{@link #publicationLatencyTimer}: the same without Flush: the delta leaves on the 1 ms cadence timer.
 * </ul>
 *
 * <p>Every iteration ends with a check that no event failed, no publication lagged, every published delta
 * reached every subscriber in sequence and residency is still E.
 */
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PoolPipelineBenchmark {
  static final int CYCLES_PER_INVOCATION = PoolPipelineFixture.THRESHOLD / 2;
  static final int BLOCK_EVENTS_PER_INVOCATION = CYCLES_PER_INVOCATION * 2 * PoolPipelineFixture.BLOCKS;

  /** Not thread-safe: confined to its benchmark thread. The single-threaded pipeline of {@link #ingestBlocksPerCore}. */
  @State(Scope.Thread)
  public static class Inline {
    /** In-process subscribers on the hub. */
    @Param({"1", "4"})
    public int subscribers;

    InlineActorScheduler scheduler;
    PoolPipelineFixture fixture;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      scheduler = new InlineActorScheduler();
      fixture = new PoolPipelineFixture(scheduler, scheduler, scheduler::runQueued,
          PoolActorConfig.DEFAULT_PUBLICATION_DELAY_NANOS, PoolPipelineFixture.RING);
      for (int i = 0; i < subscribers; i++) {
        fixture.subscribe("bench-" + i);
      }
      fixture.check();
    }

    @TearDown(Level.Iteration)
    public void check() throws Exception {
      fixture.check();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      fixture.close();
    }
  }

  /** Not thread-safe: confined to its benchmark thread. The actor on its own executor thread. */
  @State(Scope.Thread)
  public static class Threaded {
    ScheduledExecutorService executor;
    PoolPipelineFixture fixture;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "pool-actor");
        t.setDaemon(true);
        return t;
      });
      ExecutorActorScheduler scheduler = new ExecutorActorScheduler(executor);
      fixture = new PoolPipelineFixture(scheduler, scheduler, () -> { },
          PoolActorConfig.DEFAULT_PUBLICATION_DELAY_NANOS, PoolPipelineFixture.RING);
      fixture.subscribe("latency-0");
      fixture.check();
    }

    /** Removed of the oldest in-flight batch, flushed and delivered before the measured Stored. */
    @Setup(Level.Invocation)
    public void removeOldest() throws RelayException {
      fixture.submitRemoveOldest();
      fixture.submitFlush();
      fixture.awaitDelta(0);
    }

    @TearDown(Level.Iteration)
    public void check() throws Exception {
      fixture.check();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      fixture.close();
      executor.shutdownNow();
    }
  }

  /** 8 Removed + 8 Stored events of 16 blocks (one delta), then every subscriber polled until empty. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(BLOCK_EVENTS_PER_INVOCATION)
  public void ingestBlocksPerCore(Inline s, Blackhole bh) throws RelayException {
    PoolPipelineFixture f = s.fixture;
    for (int c = 0; c < CYCLES_PER_INVOCATION; c++) {
      f.submitRemoveOldest();
      f.submitStoreNext();
    }
    bh.consume(f.pollAll());
  }

  /** One Stored event, Flush, then spin until the subscriber holds its DELTA frame. */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public PoolFrame publicationLatency(Threaded s) throws RelayException {
    PoolPipelineFixture f = s.fixture;
    f.submitStoreNext();
    f.submitFlush();
    return f.awaitDelta(0);
  }

  /** One Stored event, no Flush: the delta leaves on the 1 ms publication timer. */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public PoolFrame publicationLatencyTimer(Threaded s) throws RelayException {
    PoolPipelineFixture f = s.fixture;
    f.submitStoreNext();
    return f.awaitDelta(0);
  }
}
