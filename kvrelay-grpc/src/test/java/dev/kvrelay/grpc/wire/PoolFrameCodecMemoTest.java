package dev.kvrelay.grpc.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wan.PoolFrame;
import dev.kvrelay.grpc.proto.FilterUpdate;
import org.junit.jupiter.api.Test;

/**
 * The frame codec's one-entry producer memos (performance: one producer key per stream is converted once) never
 * change what a frame encodes to or decodes into: alternating producers, equal keys in distinct instances, and an
 * invalid key right after the same key's valid form all give what the memo-free conversion gives.
 */
class WireCodecFrameMemoTest {

  private static PoolFrame withProducer(PoolFrame f, ProducerIdentity p) {
    return new PoolFrame(f.protocolVersion(), f.contractMarker(), f.relay(), p, f.baseSequence(), f.sequence(),
        f.sendTsUs(), f.kindNumber(), f.payload());
  }

  @Test
  void alternatingProducersEncodeAndDecodeEachTheirOwnKey() {
    qt().withExamples(200).forAll(WireGenerators.FRAMES, WireGenerators.FRAMES).checkAssert((a, b) -> {
      for (int round = 0; round < 3; round++) {
        for (PoolFrame f : new PoolFrame[] {a, b, a, a, b, b}) {
          FilterUpdate proto = WireCodec.toProto(f);
          // the memo-free encoding of the same key
          assertThat(proto.getProducer()).isEqualTo(WireCodec.toProto(f.producer()));
          PoolFrame back = WireCodecRoundTripProperties.validate(() -> WireCodec.fromProto(proto));
          assertThat(back.producer()).isEqualTo(f.producer());
        }
      }
    });
  }

  @Test
  void equalKeyInDistinctInstancesDecodesToThatKey() {
    qt().withExamples(100).forAll(WireGenerators.FRAMES).checkAssert(frame -> {
      ProducerIdentity p = frame.producer();
      ProducerIdentity copy = WireCodecRoundTripProperties.validate(() -> ProducerIdentity.fromWire(p.toWire()));
      assertThat(copy).isNotSameAs(p).isEqualTo(p); // equal value, distinct instance
      FilterUpdate first = WireCodec.toProto(frame);
      FilterUpdate second = WireCodec.toProto(withProducer(frame, copy));
      assertThat(second.toByteArray()).isEqualTo(first.toByteArray());
      FilterUpdate reparsed = WireCodecRoundTripProperties.parse(() -> FilterUpdate.parseFrom(second.toByteArray()));
      assertThat(reparsed).isNotSameAs(second);
      assertThat(WireCodecRoundTripProperties.validate(() -> WireCodec.fromProto(first)).producer()).isEqualTo(p);
      assertThat(WireCodecRoundTripProperties.validate(() -> WireCodec.fromProto(reparsed)).producer()).isEqualTo(p);
    });
  }

  @Test
  void invalidKeyAfterItsValidFormIsStillRejected() {
    qt().withExamples(100).forAll(WireGenerators.FRAMES).checkAssert(frame -> {
      FilterUpdate valid = WireCodec.toProto(frame);
      FilterUpdate noPool = valid.toBuilder().setProducer(valid.getProducer().toBuilder().clearPoolId()).build();
      FilterUpdate noFormat = valid.toBuilder().setProducer(valid.getProducer().toBuilder().clearCkfFormat()).build();
      for (FilterUpdate broken : new FilterUpdate[] {noPool, noFormat}) {
        assertThat(WireCodecRoundTripProperties.validate(() -> WireCodec.fromProto(valid)).producer())
            .isEqualTo(frame.producer()); // memo now holds the valid key
        assertThatThrownBy(() -> WireCodec.fromProto(broken)).isInstanceOf(WireValidationException.class);
        assertThatThrownBy(() -> WireCodec.fromProto(broken)).isInstanceOf(WireValidationException.class);
      }
    });
  }
}
