package dev.kvrelay.benchmarks;

import dev.kvrelay.spi.eventplane.EventDecodeException;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventMessage;
import dev.kvrelay.spi.eventplane.EventPlaneCodec;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Event-plane msgpack decoding, envelope + {@link RouterEvent} (plugins-wire §2.2–§2.4): the production
 * {@link EventPlaneCodec#decodeMessage} (on msgpack-core) against {@link HandWrittenMsgpackBaseline}, the
 * hand-written decoder it replaced, on the same byte arrays in the same run (issue 10, item 4: the
 * hand-written decoder would stay only if it were at least 2× faster).
 *
 * <p>Workload: {@value #MESSAGES} distinct whole messages as {@code rmp_serde::to_vec_named} writes them
 * (encoded by {@link EventPlaneCodec#encodeMessage}), cycled in order: 70 % Stored with {@code blocks}
 * blocks (random 64-bit block and token hashes, so nearly every one is a {@code uint64}; parent hash on
 * 80 %; no multimodal info), 25 % Removed of {@code blocks} hashes, 5 % Cleared; worker domain on 90 %, the
 * legacy absent domain on the rest. One op = one message decoded; {@link #setUp()} prints the mean message
 * size, so MB/s = ops/s × mean bytes / 10^6. {@link #setUp()} also checks that both decoders return
 * equal values for every message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CodecBenchmark {
  static final int MESSAGES = 1024;

  /** Blocks per Stored event (hashes per Removed): a single block, and a typical 16-block batch. */
  @Param({"1", "16"})
  int blocks;

  byte[][] messages;

  @Setup
  public void setUp() throws Exception {
    SplittableRandom r = new SplittableRandom(0xC0DEC_2026L + blocks);
    messages = new byte[MESSAGES][];
    long bytes = 0;
    for (int i = 0; i < MESSAGES; i++) {
      EventEnvelope env = new EventEnvelope(0x000F_FFFF_FFFF_FE11L, i, 1_700_000_000_000L + i, EventTopics.KV_EVENTS);
      messages[i] = EventPlaneCodec.encodeMessage(new EventMessage.KvEvent(env, event(r, i)));
      bytes += messages[i].length;
      EventMessage a = EventPlaneCodec.decodeMessage(messages[i], EventTopics.KV_EVENTS);
      EventMessage b = HandWrittenMsgpackBaseline.decodeMessage(messages[i], EventTopics.KV_EVENTS);
      if (!a.equals(b)) {
        throw new IllegalStateException("decoders disagree on message " + i + ": " + a + " vs " + b);
      }
    }
    System.out.printf("%n[CodecBenchmark] blocks=%d: %d messages, mean %.1f bytes/message%n",
        blocks, MESSAGES, bytes / (double) MESSAGES);
  }

  private RouterEvent event(SplittableRandom r, int i) {
    long worker = r.nextLong();
    ResidencyDomain domain = r.nextInt(10) == 0 ? ResidencyDomain.ABSENT : ResidencyDomain.WORKER;
    int kind = r.nextInt(100);
    KvEventData data;
    if (kind < 70) {
      List<StoredBlock> list = new ArrayList<>(blocks);
      for (int b = 0; b < blocks; b++) {
        list.add(StoredBlock.of(r.nextLong(), r.nextLong()));
      }
      data = new KvEventData.Stored(r.nextInt(5) == 0 ? OptionalLong.empty() : OptionalLong.of(r.nextLong()),
          OptionalLong.empty(), list);
    } else if (kind < 95) {
      long[] hashes = new long[blocks];
      for (int b = 0; b < blocks; b++) {
        hashes[b] = r.nextLong();
      }
      data = new KvEventData.Removed(hashes);
    } else {
      data = KvEventData.Cleared.INSTANCE;
    }
    return new RouterEvent(worker, StorageTier.DEVICE, domain, 1_000L + i, 0, data);
  }

  /** The production decoder (msgpack-core). */
  @Benchmark
  @OperationsPerInvocation(MESSAGES)
  public void msgpackCore(Blackhole bh) throws EventDecodeException {
    for (byte[] m : messages) {
      bh.consume(EventPlaneCodec.decodeMessage(m, EventTopics.KV_EVENTS));
    }
  }

  /** The hand-written baseline. */
  @Benchmark
  @OperationsPerInvocation(MESSAGES)
  public void handWritten(Blackhole bh) throws HandWrittenMsgpackBaseline.Failure {
    for (byte[] m : messages) {
      bh.consume(HandWrittenMsgpackBaseline.decodeMessage(m, EventTopics.KV_EVENTS));
    }
  }
}
