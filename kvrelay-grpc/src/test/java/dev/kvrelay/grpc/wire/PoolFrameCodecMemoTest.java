package dev.kvrelay.grpc.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.grpc.proto.FilterUpdate;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A stream's {@link PoolFrameCodec} keeps one-entry producer memos (performance: one producer key per stream is
 * converted once). The memos never change what a frame encodes to or decodes into (alternating producers, equal
 * keys in distinct instances, an invalid key right after the same key's valid form all give what the memo-free
 * conversion gives), and they belong to their stream: two streams with different producers, run alternately or
 * concurrently, each convert their key exactly once, and the wire package holds no static mutable state.
 */
class PoolFrameCodecMemoTest {

  private static PoolFrame withProducer(PoolFrame f, ProducerIdentity p) {
    return new PoolFrame(f.protocolVersion(), f.contractMarker(), f.relay(), p, f.baseSequence(), f.sequence(),
        f.sendTsUs(), f.kindNumber(), f.payload());
  }

  private static FilterUpdate reparse(FilterUpdate u) {
    return WireCodecRoundTripProperties.parse(() -> FilterUpdate.parseFrom(u.toByteArray()));
  }

  @Test
  void alternatingProducersEncodeAndDecodeEachTheirOwnKey() {
    qt().withExamples(200).forAll(WireGenerators.FRAMES, WireGenerators.FRAMES).checkAssert((a, b) -> {
      PoolFrameCodec codec = new PoolFrameCodec();
      for (int round = 0; round < 3; round++) {
        for (PoolFrame f : new PoolFrame[] {a, b, a, a, b, b}) {
          FilterUpdate proto = codec.encode(f);
          // the memo-free encoding of the same frame
          assertThat(proto).isEqualTo(WireCodec.toProto(f));
          PoolFrame back = WireCodecRoundTripProperties.validate(() -> codec.decode(reparse(proto)));
          assertThat(back.producer()).isEqualTo(f.producer());
        }
      }
    });
  }

  @Test
  void equalKeyInDistinctInstancesDecodesToThatKey() {
    qt().withExamples(100).forAll(WireGenerators.FRAMES).checkAssert(frame -> {
      PoolFrameCodec codec = new PoolFrameCodec();
      ProducerIdentity p = frame.producer();
      ProducerIdentity copy = WireCodecRoundTripProperties.validate(() -> ProducerIdentity.fromWire(p.toWire()));
      assertThat(copy).isNotSameAs(p).isEqualTo(p); // equal value, distinct instance
      FilterUpdate first = codec.encode(frame);
      FilterUpdate second = codec.encode(withProducer(frame, copy));
      assertThat(second.toByteArray()).isEqualTo(first.toByteArray());
      FilterUpdate reparsed = reparse(second);
      assertThat(reparsed).isNotSameAs(second);
      assertThat(WireCodecRoundTripProperties.validate(() -> codec.decode(first)).producer()).isEqualTo(p);
      assertThat(WireCodecRoundTripProperties.validate(() -> codec.decode(reparsed)).producer()).isEqualTo(p);
      assertThat(codec.encodeMisses()).as("an equal key hits the encode memo").isEqualTo(1);
      assertThat(codec.decodeMisses()).as("an equal message hits the decode memo").isEqualTo(1);
    });
  }

  @Test
  void invalidKeyAfterItsValidFormIsStillRejected() {
    qt().withExamples(100).forAll(WireGenerators.FRAMES).checkAssert(frame -> {
      PoolFrameCodec codec = new PoolFrameCodec();
      FilterUpdate valid = codec.encode(frame);
      FilterUpdate noPool = valid.toBuilder().setProducer(valid.getProducer().toBuilder().clearPoolId()).build();
      FilterUpdate noFormat = valid.toBuilder().setProducer(valid.getProducer().toBuilder().clearCkfFormat()).build();
      for (FilterUpdate broken : new FilterUpdate[] {noPool, noFormat}) {
        assertThat(WireCodecRoundTripProperties.validate(() -> codec.decode(valid)).producer())
            .isEqualTo(frame.producer()); // memo now holds the valid key
        assertThatThrownBy(() -> codec.decode(broken)).isInstanceOf(WireValidationException.class);
        assertThatThrownBy(() -> codec.decode(broken)).isInstanceOf(WireValidationException.class);
      }
    });
  }

  /** Interleaved one frame at a time, two streams' codecs never evict each other's memo. */
  @Test
  void alternatingStreamsKeepTheirOwnMemo() {
    qt().withExamples(100).forAll(WireGenerators.FRAMES, WireGenerators.FRAMES)
        .assuming((a, b) -> !a.producer().equals(b.producer()))
        .checkAssert((a, b) -> {
          PoolFrameCodec streamA = new PoolFrameCodec();
          PoolFrameCodec streamB = new PoolFrameCodec();
          for (int i = 0; i < 5; i++) {
            assertThat(roundTrip(streamA, a).producer()).isEqualTo(a.producer());
            assertThat(roundTrip(streamB, b).producer()).isEqualTo(b.producer());
          }
          assertThat(List.of(streamA.encodeMisses(), streamA.decodeMisses(), streamB.encodeMisses(),
              streamB.decodeMisses())).as("each stream converted its own key once").containsOnly(1L);
        });
  }

  /** Two streams on two threads at once, each with its own producer: each converts its key exactly once. */
  @Test
  void concurrentStreamsDoNotShareMemoState() throws Exception {
    List<PoolFrame> frames = new ArrayList<>();
    qt().withExamples(2).forAll(WireGenerators.FRAMES, WireGenerators.FRAMES)
        .assuming((a, b) -> !a.producer().equals(b.producer()))
        .checkAssert((a, b) -> {
          frames.clear();
          frames.add(a);
          frames.add(b);
        });
    int rounds = 5_000;
    CyclicBarrier start = new CyclicBarrier(2);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      List<Future<PoolFrameCodec>> results = new ArrayList<>();
      for (PoolFrame frame : frames) {
        results.add(threads.submit(() -> {
          PoolFrameCodec codec = new PoolFrameCodec();
          start.await(30, TimeUnit.SECONDS);
          for (int i = 0; i < rounds; i++) {
            PoolFrame back = roundTrip(codec, frame);
            if (!frame.producer().equals(back.producer())) {
              throw new AssertionError("round " + i + " decoded " + back.producer());
            }
          }
          return codec;
        }));
      }
      for (Future<PoolFrameCodec> r : results) {
        PoolFrameCodec codec = r.get(120, TimeUnit.SECONDS);
        assertThat(codec.encodeMisses()).as("encode memo misses of one stream").isEqualTo(1);
        assertThat(codec.decodeMisses()).as("decode memo misses of one stream").isEqualTo(1);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static PoolFrame roundTrip(PoolFrameCodec codec, PoolFrame frame) {
    return WireCodecRoundTripProperties.validate(() -> codec.decode(reparse(codec.encode(frame))));
  }

  /** No codec of the wire package keeps process-global mutable state: every static field is final. */
  @Test
  void wirePackageHasNoStaticMutableState() throws IOException, ClassNotFoundException {
    Path dir = Path.of("target/classes/dev/kvrelay/grpc/wire");
    List<String> classes;
    try (Stream<Path> s = Files.list(dir)) {
      classes = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".class"))
          .map(n -> "dev.kvrelay.grpc.wire." + n.substring(0, n.length() - ".class".length())).sorted().toList();
    }
    assertThat(classes).contains("dev.kvrelay.grpc.wire.WireCodec", "dev.kvrelay.grpc.wire.PoolFrameCodec");
    List<String> mutable = new ArrayList<>();
    for (String name : classes) {
      for (Field f : Class.forName(name).getDeclaredFields()) {
        int m = f.getModifiers();
        if (Modifier.isStatic(m) && !Modifier.isFinal(m)) {
          mutable.add(name + "." + f.getName());
        }
      }
    }
    assertThat(mutable).isEmpty();
  }
}
