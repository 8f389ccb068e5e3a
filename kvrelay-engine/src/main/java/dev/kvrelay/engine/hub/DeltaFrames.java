package dev.kvrelay.engine.hub;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.ckf.cbi1.Cbi1EncodeException;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.engine.wire.PoolFrame;

/**
 * Immutable and thread-safe: the encoder of one pool generation's deltas into the one CBI1 DELTA {@link PoolFrame}
 * that every subscriber of its hub shares (encoded once per delta, counted).
 */
final class DeltaFrames {
  private final HubRegistry registry;
  private final ProducerIdentity producer;
  private final CkfFormat format;
  private final long dcId;

  DeltaFrames(HubRegistry registry, ProducerIdentity producer, CkfFormat format, long dcId) {
    this.registry = registry;
    this.producer = producer;
    this.format = format;
    this.dcId = dcId;
  }

  /** The DELTA frame {@code wireBase → wireBase + 1} of {@code d}'s first {@code images} images. */
  PoolFrame encode(CkfDelta d, long wireBase, int images) throws Cbi1EncodeException {
    byte[] payload = Cbi1Encoder.encodeDelta(format, dcId, wireBase, wireBase + 1, d.buckets(), d.words(), images);
    registry.counters().deltasEncoded.increment();
    return PoolFrame.of(registry.relay(), producer, wireBase, wireBase + 1, registry.epochMicros(),
        PoolFrame.Kind.DELTA, payload);
  }
}
