package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.spi.eventplane.EventDecodeException;

/**
 * Immutable and thread-safe: why a received ZMQ message was dropped, one counter each in {@link ZmqStats}. Every
 * kind but {@link #DUPLICATE} is a rejection of the SPI's {@code ZmqFrames.check} (runtime-inputs §5.4) and is
 * also reported to the listener's {@code onDecodeError}.
 */
public enum ZmqDrop {
  /** Not exactly four frames. */
  FRAME_COUNT,
  /** The publisher id or sequence frame is not 8 bytes. */
  FRAME_SIZE,
  /** The payload frame is shorter than its 5-byte header, or its {@code payload_len} is not the bytes that follow. */
  PAYLOAD_LENGTH,
  /** The payload frame's version byte is not {@code 0x01}. */
  FRAME_VERSION,
  /** Frame 0 or the envelope's {@code topic} is not the subscribed topic (or subject, in broker mode). */
  TOPIC_MISMATCH,
  /** The frame-1 publisher is not one of the channels the subscription connected to (direct mode). */
  UNEXPECTED_PUBLISHER,
  /** The envelope's {@code publisher_id} differs from frame 1. */
  PUBLISHER_MISMATCH,
  /** The envelope's {@code sequence} differs from frame 2. */
  SEQUENCE_MISMATCH,
  /** The envelope or its payload is not valid msgpack of the expected shape. */
  UNDECODABLE,
  /** The same (publisher, sequence) arrived again through another broker (several XPUB endpoints). */
  DUPLICATE;

  /** The kind of a {@code ZmqFrames.check} rejection, from its reason and field. */
  static ZmqDrop of(EventDecodeException e) {
    return switch (e.reason()) {
      case BAD_FRAMING -> switch (e.field()) {
        case "frames" -> FRAME_COUNT;
        case "frame1", "frame2" -> FRAME_SIZE;
        default -> PAYLOAD_LENGTH;
      };
      case UNSUPPORTED_FRAME_VERSION -> FRAME_VERSION;
      case IDENTITY_MISMATCH -> switch (e.field()) {
        case "frame0", "topic" -> TOPIC_MISMATCH;
        case "frame1" -> UNEXPECTED_PUBLISHER;
        case "publisher_id" -> PUBLISHER_MISMATCH;
        case "sequence" -> SEQUENCE_MISMATCH;
        default -> UNDECODABLE;
      };
      default -> UNDECODABLE;
    };
  }
}
