package dev.kvrelay.spi.eventplane;

import dev.kvrelay.spi.eventplane.EventDecodeException.Reason;

/**
 * Stateless and thread-safe: the one msgpack codec of the event plane. Decodes the named-map envelope
 * {@code {publisher_id, sequence, published_at, topic, payload: bin}} and its {@link RouterEvent} or
 * {@link ActiveLoad} payload leniently, and encodes them exactly as {@code rmp_serde::to_vec_named} does
 * (runtime-inputs.md §5.6–§5.7, §8, §11 Q1).
 *
 * <p>Decoding accepts: unit variants as a bare string or a one-entry map (whose value is ignored);
 * newtype and struct variants as one-entry maps; nil for an absent optional; any integer width, signed or
 * unsigned, for unsigned fields (a negative value is {@link Reason#OUT_OF_RANGE}); unknown map keys
 * (skipped, any type); fields in any order. It rejects, with a typed {@link EventDecodeException}:
 * truncation, wrong types, missing required fields, duplicate fields, unknown variants, structs encoded
 * as arrays (only the named form is used on this plane), invalid UTF-8 and trailing bytes. It never
 * throws an unchecked exception on any input and never allocates from a declared length before checking
 * it against the bytes that remain.
 *
 * <p>Encoding writes keys in the order the spec lists them, nil for absent optionals, and the smallest
 * msgpack form of every integer, string, container and byte string. The {@code residency_domain} key is
 * omitted for {@link ResidencyDomain#ABSENT} (legacy payloads) and written as nil for an unknown domain
 * received as nil.
 */
public final class EventPlaneCodec {

  private EventPlaneCodec() {}

  // ------------------------------------------------------------------ decoding

  /**
   * Decodes one message (an envelope whose payload is decoded by {@code expectedTopic}: {@link ActiveLoad}
   * for {@code kv_metrics}, {@link RouterEvent} otherwise) and checks that the envelope's topic equals
   * {@code expectedTopic}.
   *
   * @throws EventDecodeException for any defect; it carries the publisher id once the envelope was read
   */
  public static EventMessage decodeMessage(byte[] bytes, String expectedTopic) throws EventDecodeException {
    return decodeMessage(bytes, 0, bytes.length, expectedTopic);
  }

  /** As {@link #decodeMessage(byte[], String)}, for {@code bytes[offset, offset + length)}. */
  public static EventMessage decodeMessage(byte[] bytes, int offset, int length, String expectedTopic)
      throws EventDecodeException {
    checkRange(bytes, offset, length);
    MsgpackReader in = new MsgpackReader(bytes, offset, length);
    EventDecoder.Envelope env = EventDecoder.readEnvelope(in);
    in.expectEnd("");
    EventEnvelope envelope = env.envelope();
    MsgpackReader.Span payload = env.payload();
    long publisher = envelope.publisherId();
    if (!envelope.topic().equals(expectedTopic)) {
      throw new EventDecodeException(Reason.IDENTITY_MISMATCH, "topic",
          "envelope topic '" + envelope.topic() + "' is not the subscribed topic '" + expectedTopic + "'")
          .withPublisherId(publisher);
    }
    byte[] copy = payload.copy();
    byte[] src = copy != null ? copy : bytes;
    try {
      if (EventTopics.carriesLoad(expectedTopic)) {
        return new EventMessage.Load(envelope, decodeActiveLoad(src, payload.offset(), payload.length()));
      }
      return new EventMessage.KvEvent(envelope, decodeRouterEvent(src, payload.offset(), payload.length()));
    } catch (EventDecodeException e) {
      throw e.under("payload").withPublisherId(publisher);
    }
  }

  /** Decodes one {@link RouterEvent} payload. */
  public static RouterEvent decodeRouterEvent(byte[] bytes) throws EventDecodeException {
    return decodeRouterEvent(bytes, 0, bytes.length);
  }

  /** Decodes one {@link RouterEvent} payload from {@code bytes[offset, offset + length)}. */
  public static RouterEvent decodeRouterEvent(byte[] bytes, int offset, int length) throws EventDecodeException {
    checkRange(bytes, offset, length);
    MsgpackReader in = new MsgpackReader(bytes, offset, length);
    RouterEvent e = EventDecoder.readRouterEvent(in);
    in.expectEnd("");
    return e;
  }

  /** Decodes one {@link ActiveLoad} payload. */
  public static ActiveLoad decodeActiveLoad(byte[] bytes) throws EventDecodeException {
    return decodeActiveLoad(bytes, 0, bytes.length);
  }

  /** Decodes one {@link ActiveLoad} payload from {@code bytes[offset, offset + length)}. */
  public static ActiveLoad decodeActiveLoad(byte[] bytes, int offset, int length) throws EventDecodeException {
    checkRange(bytes, offset, length);
    MsgpackReader in = new MsgpackReader(bytes, offset, length);
    ActiveLoad load = EventDecoder.readActiveLoad(in);
    in.expectEnd("");
    return load;
  }

  private static void checkRange(byte[] bytes, int offset, int length) {
    if (offset < 0 || length < 0 || offset > bytes.length - length) {
      throw new IndexOutOfBoundsException(
          "range [" + offset + ", +" + length + ") outside an array of " + bytes.length);
    }
  }

  // ------------------------------------------------------------------ encoding

  /** Encodes a {@link RouterEvent} as {@code rmp_serde::to_vec_named} does. */
  public static byte[] encodeRouterEvent(RouterEvent event) {
    return EventEncoder.routerEvent(event);
  }

  /** Encodes an {@link ActiveLoad} as {@code rmp_serde::to_vec_named} does. */
  public static byte[] encodeActiveLoad(ActiveLoad load) {
    return EventEncoder.activeLoad(load);
  }

  /** Encodes an envelope around an already encoded payload. */
  public static byte[] encodeEnvelope(EventEnvelope envelope, byte[] payload) {
    return EventEncoder.envelope(envelope, payload);
  }

  /** Encodes a whole message: the envelope around the encoded payload. */
  public static byte[] encodeMessage(EventMessage message) {
    byte[] payload = message instanceof EventMessage.KvEvent k
        ? encodeRouterEvent(k.event())
        : encodeActiveLoad(((EventMessage.Load) message).load());
    return encodeEnvelope(message.envelope(), payload);
  }
}
