package dev.kvrelay.grpc.wire;

import static dev.kvrelay.grpc.wire.IdentityCodec.envelope;
import static dev.kvrelay.grpc.wire.IdentityCodec.producer;
import static dev.kvrelay.grpc.wire.IdentityCodec.toProto;

import com.google.protobuf.UnsafeByteOperations;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the one stream that owns it (its serial send loop on the server, its serial message
 * callback on the client) — the codec of the pool-frame family ({@code FilterUpdate}, wan-grpc.md §1.5) with that
 * stream's producer memos.
 *
 * <p>Pool frames repeat one producer key per stream, so each stream's codec remembers the last producer it encoded
 * (engine value → message) and the last one it validated (message → engine value): both mappings are pure
 * functions, a memo hit returns what the full conversion would, and a miss just converts and replaces the memo
 * (wan-latency profile: the per-frame producer validation was ≈ 3 % of the relay's CPU on the client). The memos
 * belong to the stream, so concurrent streams never see each other's keys. {@link WireCodec#toProto(PoolFrame)} and
 * {@link WireCodec#fromProto(FilterUpdate)} convert one frame without any memo.
 */
public final class PoolFrameCodec {

  /** Immutable: a producer key and its message, as last converted by this codec. */
  private record ProducerMemo(dev.kvrelay.api.ProducerIdentity value, ProducerIdentity proto) { }

  private @Nullable ProducerMemo encoded;
  private @Nullable ProducerMemo decoded;
  private long encodeMisses;
  private long decodeMisses;

  /** A codec with empty memos, for one stream. */
  public PoolFrameCodec() {}

  /**
   * {@code FilterUpdate} for a frame: the raw kind number is kept; the payload is wrapped without a copy
   * ({@link PoolFrame}'s payload is never written again).
   */
  public FilterUpdate encode(PoolFrame frame) {
    dev.kvrelay.api.ProducerIdentity p = frame.producer();
    return encode(frame, p == null ? null : encodeProducer(p));
  }

  /**
   * A received frame for {@code PoolReplica.apply}, which checks the envelope, the producer and the kind. The kind
   * number is kept raw (an unknown kind survives). A present producer is validated only once the envelope passes (a
   * bad marker always wins; with a bad envelope the producer is left {@code null}).
   *
   * @throws WireValidationException the producer's first broken rule (§1.8)
   */
  public PoolFrame decode(FilterUpdate update) throws WireValidationException {
    WireEnvelope envelope = frameEnvelope(update);
    return decode(update, envelope, envelope.valid() && update.hasProducer() ? decodeProducer(update.getProducer()) : null);
  }

  /** Producer conversions that missed the encode memo (tests: proof that the memo is this stream's own). */
  long encodeMisses() {
    return encodeMisses;
  }

  /** Producer validations that missed the decode memo. */
  long decodeMisses() {
    return decodeMisses;
  }

  @SuppressWarnings("ReferenceEquality") // identity is the memo's fast path before equals, once per frame
  private ProducerIdentity encodeProducer(dev.kvrelay.api.ProducerIdentity producer) {
    ProducerMemo m = encoded;
    if (m != null && (m.value() == producer || m.value().equals(producer))) {
      return m.proto();
    }
    encodeMisses++;
    ProducerIdentity proto = toProto(producer);
    encoded = new ProducerMemo(producer, proto);
    return proto;
  }

  /** Validates through the decode memo (only valid keys are remembered). */
  @SuppressWarnings("ReferenceEquality") // identity is the memo's fast path before equals, once per frame
  private dev.kvrelay.api.ProducerIdentity decodeProducer(ProducerIdentity proto) throws WireValidationException {
    ProducerMemo m = decoded;
    if (m != null && (m.proto() == proto || m.proto().equals(proto))) {
      return m.value();
    }
    decodeMisses++;
    dev.kvrelay.api.ProducerIdentity value = producer(proto);
    decoded = new ProducerMemo(value, proto);
    return value;
  }

  /** {@link #encode} without a memo. */
  static FilterUpdate encodeOnce(PoolFrame frame) {
    dev.kvrelay.api.ProducerIdentity p = frame.producer();
    return encode(frame, p == null ? null : toProto(p));
  }

  /** {@link #decode} without a memo. */
  static PoolFrame decodeOnce(FilterUpdate update) throws WireValidationException {
    WireEnvelope envelope = frameEnvelope(update);
    return decode(update, envelope, envelope.valid() && update.hasProducer() ? producer(update.getProducer()) : null);
  }

  private static FilterUpdate encode(PoolFrame frame, @Nullable ProducerIdentity producer) {
    FilterUpdate.Builder b = FilterUpdate.newBuilder()
        .setProtocolVersion(frame.protocolVersion())
        .setBaseSequence(frame.baseSequence())
        .setSequence(frame.sequence())
        .setSendTsUs(frame.sendTsUs())
        .setKindValue(frame.kindNumber())
        .setPayload(UnsafeByteOperations.unsafeWrap(frame.payload()))
        .setContractMarker((int) frame.contractMarker());
    if (frame.relay() != null) {
      b.setRelay(toProto(frame.relay()));
    }
    if (producer != null) {
      b.setProducer(producer);
    }
    return b.build();
  }

  private static WireEnvelope frameEnvelope(FilterUpdate update) {
    return envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null);
  }

  private static PoolFrame decode(FilterUpdate update, WireEnvelope envelope,
      dev.kvrelay.api.@Nullable ProducerIdentity producer) {
    return new PoolFrame(envelope.protocolVersion(), envelope.contractMarker(), envelope.relay(), producer,
        update.getBaseSequence(), update.getSequence(), update.getSendTsUs(), update.getKindValue(),
        update.getPayload().toByteArray());
  }
}
