package dev.kvrelay.spi.eventplane;

import dev.kvrelay.spi.eventplane.EventDecodeException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * Stateless and thread-safe: the ZMQ direct-mode wire (runtime-inputs.md §5.4) as pure functions, so a
 * ZMQ plugin only does socket I/O. A message is exactly four frames: the topic, the publisher id
 * (8 bytes big-endian), the sequence (8 bytes big-endian), and {@code 0x01 · payload_len (u32 BE) ·
 * msgpack envelope}.
 */
public final class ZmqFrames {
  /** The payload frame's version byte. */
  public static final int FRAME_VERSION = 0x01;
  /** Version byte plus the 4-byte length. */
  static final int PAYLOAD_HEADER_BYTES = 5;

  private ZmqFrames() {}

  /**
   * Builds the four frames of one message (the publisher side; for tests, the in-memory plane and
   * interop).
   *
   * @param frame0 frame 0: the plain topic (direct mode) or the full subject (broker mode)
   * @param envelope the envelope whose publisher id and sequence frames 1 and 2 repeat
   * @param envelopeBytes the encoded envelope ({@link EventPlaneCodec#encodeEnvelope})
   */
  public static List<byte[]> encode(String frame0, EventEnvelope envelope, byte[] envelopeBytes) {
    byte[] payload = new byte[PAYLOAD_HEADER_BYTES + envelopeBytes.length];
    payload[0] = (byte) FRAME_VERSION;
    putBigEndian(payload, 1, envelopeBytes.length, 4);
    System.arraycopy(envelopeBytes, 0, payload, PAYLOAD_HEADER_BYTES, envelopeBytes.length);
    byte[] id = new byte[8];
    putBigEndian(id, 0, envelope.publisherId(), 8);
    byte[] seq = new byte[8];
    putBigEndian(seq, 0, envelope.sequence(), 8);
    return List.of(frame0.getBytes(StandardCharsets.UTF_8), id, seq, payload);
  }

  /**
   * Validates one received message and decodes it (upstream {@code ValidatedZmqSource}): exactly four
   * frames; frame 0 equal to {@code frame0}; 8-byte frames 1 and 2; version {@code 0x01} and a
   * {@code payload_len} equal to the bytes that follow; the frame-1 publisher accepted by
   * {@code expectedPublisher} (the ids of the channels the subscription connected to, from discovery);
   * and the envelope's publisher id, sequence and topic equal to frame 1, frame 2 and {@code topic}.
   * Never throws on any frame content.
   *
   * @param frames the received frames
   * @param frame0 the expected frame 0: the plain topic (direct mode) or the full subject (broker mode)
   * @param topic the plain topic: the envelope's topic, which also selects the payload type
   * @param expectedPublisher accepts the publisher ids this subscription expects
   */
  public static ZmqFrameCheck check(
      List<byte[]> frames, String frame0, String topic, LongPredicate expectedPublisher) {
    if (frames.size() != 4) {
      return reject(Reason.BAD_FRAMING, "frames", "expected 4 frames, got " + frames.size());
    }
    if (!Arrays.equals(frames.get(0), frame0.getBytes(StandardCharsets.UTF_8))) {
      return reject(Reason.IDENTITY_MISMATCH, "frame0", "frame 0 is not the subscribed topic '" + frame0 + "'");
    }
    byte[] idFrame = frames.get(1);
    if (idFrame.length != 8) {
      return reject(Reason.BAD_FRAMING, "frame1", "publisher id frame has " + idFrame.length + " bytes, not 8");
    }
    long publisherId = bigEndian(idFrame, 0, 8);
    byte[] seqFrame = frames.get(2);
    if (seqFrame.length != 8) {
      return rejectFrom(publisherId, Reason.BAD_FRAMING, "frame2",
          "sequence frame has " + seqFrame.length + " bytes, not 8");
    }
    long sequence = bigEndian(seqFrame, 0, 8);
    if (!expectedPublisher.test(publisherId)) {
      return rejectFrom(publisherId, Reason.IDENTITY_MISMATCH, "frame1",
          "publisher " + Long.toUnsignedString(publisherId) + " is not an expected publisher of this subscription");
    }
    byte[] payload = frames.get(3);
    if (payload.length < PAYLOAD_HEADER_BYTES) {
      return rejectFrom(publisherId, Reason.BAD_FRAMING, "frame3",
          "payload frame has " + payload.length + " bytes, fewer than its 5-byte header");
    }
    if ((payload[0] & 0xFF) != FRAME_VERSION) {
      return rejectFrom(publisherId, Reason.UNSUPPORTED_FRAME_VERSION, "frame3",
          "frame version " + (payload[0] & 0xFF) + " is not 1");
    }
    long declared = bigEndian(payload, 1, 4);
    long actual = (long) payload.length - PAYLOAD_HEADER_BYTES;
    if (declared != actual) {
      return rejectFrom(publisherId, Reason.BAD_FRAMING, "frame3",
          "payload_len " + declared + " but " + actual + " payload bytes follow");
    }
    EventMessage message;
    try {
      message = EventPlaneCodec.decodeMessage(payload, PAYLOAD_HEADER_BYTES, (int) actual, topic);
    } catch (EventDecodeException e) {
      return new ZmqFrameCheck.Rejected(e.withPublisherId(publisherId));
    }
    EventEnvelope env = message.envelope();
    if (env.publisherId() != publisherId) {
      return rejectFrom(publisherId, Reason.IDENTITY_MISMATCH, "publisher_id",
          "envelope publisher " + Long.toUnsignedString(env.publisherId()) + " differs from frame 1");
    }
    if (env.sequence() != sequence) {
      return rejectFrom(publisherId, Reason.IDENTITY_MISMATCH, "sequence",
          "envelope sequence " + Long.toUnsignedString(env.sequence()) + " differs from frame 2 ("
              + Long.toUnsignedString(sequence) + ")");
    }
    return new ZmqFrameCheck.Accepted(message);
  }

  private static ZmqFrameCheck reject(Reason reason, String field, String detail) {
    return new ZmqFrameCheck.Rejected(new EventDecodeException(reason, field, detail));
  }

  private static ZmqFrameCheck rejectFrom(long publisherId, Reason reason, String field, String detail) {
    return new ZmqFrameCheck.Rejected(new EventDecodeException(reason, field, detail).withPublisherId(publisherId));
  }

  private static long bigEndian(byte[] b, int off, int n) {
    long v = 0;
    for (int i = 0; i < n; i++) {
      v = (v << 8) | (b[off + i] & 0xFFL);
    }
    return v;
  }

  private static void putBigEndian(byte[] b, int off, long v, int n) {
    for (int i = 0; i < n; i++) {
      b[off + i] = (byte) (v >>> (8 * (n - 1 - i)));
    }
  }
}
