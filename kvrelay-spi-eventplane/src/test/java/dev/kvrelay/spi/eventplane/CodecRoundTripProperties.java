package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Round trips and encodings checked against an independent writer built from the spec's field lists
 * ({@link SpecTree} + {@link TestMsgpack}): canonical bytes must be identical; every lenient spelling
 * (any integer width, signed or unsigned; any string/container/bin width; shuffled keys; unknown keys;
 * unit variants as string or one-entry map; byte strings as arrays) must decode to the same value.
 */
class CodecRoundTripProperties {

  @Test
  void routerEventEncodingEqualsTheIndependentCanonicalWriter() {
    qt().withExamples(3_000).forAll(longs().all()).checkAssert(seed -> {
      RouterEvent e = EventGens.routerEvent(new SplittableRandom(seed));
      assertThat(Hex.of(EventPlaneCodec.encodeRouterEvent(e)))
          .isEqualTo(Hex.of(TestMsgpack.canonical(SpecTree.routerEvent(e))));
    });
  }

  @Test
  void routerEventRoundTrips() {
    qt().withExamples(3_000).forAll(longs().all()).checkAssert(seed -> {
      RouterEvent e = EventGens.routerEvent(new SplittableRandom(seed));
      assertThat(decodeEvent(EventPlaneCodec.encodeRouterEvent(e))).isEqualTo(e);
    });
  }

  @Test
  void everyLenientSpellingOfARouterEventDecodesToIt() {
    qt().withExamples(3_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      RouterEvent e = EventGens.routerEvent(r);
      assertThat(decodeEvent(TestMsgpack.lenient(SpecTree.routerEvent(e), r))).isEqualTo(e);
    });
  }

  @Test
  void activeLoadEncodingAndLenientDecoding() {
    qt().withExamples(3_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      ActiveLoad l = EventGens.activeLoad(r);
      byte[] canonical = EventPlaneCodec.encodeActiveLoad(l);
      assertThat(Hex.of(canonical)).isEqualTo(Hex.of(TestMsgpack.canonical(SpecTree.activeLoad(l))));
      try {
        assertThat(EventPlaneCodec.decodeActiveLoad(canonical)).isEqualTo(l);
        assertThat(EventPlaneCodec.decodeActiveLoad(TestMsgpack.lenient(SpecTree.activeLoad(l), r))).isEqualTo(l);
      } catch (EventDecodeException ex) {
        throw new AssertionError(ex);
      }
    });
  }

  @Test
  void envelopesRoundTripAndDecodeLeniently() {
    qt().withExamples(2_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      boolean load = r.nextBoolean();
      String topic = load ? EventTopics.KV_METRICS : EventTopics.KV_EVENTS;
      EventEnvelope env = EventGens.envelope(r, topic);
      EventMessage m = load
          ? new EventMessage.Load(env, EventGens.activeLoad(r))
          : new EventMessage.KvEvent(env, EventGens.routerEvent(r));
      byte[] bytes = EventPlaneCodec.encodeMessage(m);
      byte[] payload = m instanceof EventMessage.KvEvent k
          ? EventPlaneCodec.encodeRouterEvent(k.event())
          : EventPlaneCodec.encodeActiveLoad(((EventMessage.Load) m).load());
      assertThat(Hex.of(bytes)).isEqualTo(Hex.of(TestMsgpack.canonical(SpecTree.envelope(env, payload))));
      try {
        assertThat(EventPlaneCodec.decodeMessage(bytes, topic)).isEqualTo(m);
        byte[] lenient = TestMsgpack.lenient(SpecTree.envelope(env, payload), r);
        assertThat(EventPlaneCodec.decodeMessage(lenient, topic)).isEqualTo(m);
      } catch (EventDecodeException ex) {
        throw new AssertionError(ex);
      }
    });
  }

  static RouterEvent decodeEvent(byte[] bytes) {
    try {
      return EventPlaneCodec.decodeRouterEvent(bytes);
    } catch (EventDecodeException e) {
      throw new AssertionError(e.getMessage() + " in " + Hex.of(bytes), e);
    }
  }
}
