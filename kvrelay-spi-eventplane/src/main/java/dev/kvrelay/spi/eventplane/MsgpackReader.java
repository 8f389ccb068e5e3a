package dev.kvrelay.spi.eventplane;

import dev.kvrelay.spi.eventplane.EventDecodeException.Reason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageSizeException;
import org.msgpack.core.MessageUnpacker;

/**
 * Not thread-safe: confined to one decode call. A cursor over a byte range, on msgpack-core's {@link
 * MessageUnpacker}, that reports every defect as an {@link EventDecodeException} and never lets the library
 * read or allocate from a declared length before checking it against the bytes that remain.
 *
 * <p>msgpack-core parses every header and integer width; this class adds what the event plane needs on
 * top: unsigned 64-bit integers without {@link java.math.BigInteger} (msgpack-core has no unsigned read,
 * so a {@code uint64} value's nine raw bytes are read with {@link MessageUnpacker#readPayload(byte[], int,
 * int)}), map keys matched by their bytes without building strings, a depth-bounded skip of ignored values
 * (msgpack-core's own {@link MessageUnpacker#skipValue()} has no depth bound) and strict UTF-8 through the
 * JDK's reporting decoder.
 */
final class MsgpackReader {
  /** How deep an ignored (unknown) value may nest before the decoder gives up. */
  static final int MAX_SKIP_DEPTH = 64;

  /** Longest key compared by name; every known name is shorter. */
  private static final int MAX_NAME = 32;

  private final byte[] buf;
  private final int start;
  private final int length;
  private final MessageUnpacker in;
  private final byte[] scratch = new byte[MAX_NAME];

  MsgpackReader(byte[] buf, int offset, int length) {
    this.buf = buf;
    this.start = offset;
    this.length = length;
    this.in = MessagePack.newDefaultUnpacker(buf, offset, length);
  }

  /** Bytes not yet consumed. */
  int remaining() {
    return length - (int) in.getTotalReadBytes();
  }

  /** Index into {@link #buffer()} of the next byte. */
  private int position() {
    return start + (int) in.getTotalReadBytes();
  }

  void expectEnd(String field) throws EventDecodeException {
    int left = remaining();
    if (left != 0) {
      throw new EventDecodeException(Reason.TRAILING_BYTES, field, left + " bytes after the value");
    }
  }

  private MessageFormat peek(String field) throws EventDecodeException {
    if (remaining() <= 0) {
      throw new EventDecodeException(Reason.TRUNCATED, field, "input ends where a value starts");
    }
    try {
      return in.getNextFormat();
    } catch (IOException | MessagePackException e) {
      throw translate(e, field);
    }
  }

  /** True if the next value is nil (not consumed). */
  boolean nextIsNil(String field) throws EventDecodeException {
    return peek(field) == MessageFormat.NIL;
  }

  /** True if the next value is a string (not consumed). */
  boolean nextIsString(String field) throws EventDecodeException {
    return isString(peek(field));
  }

  /** True if the next value is a map (not consumed). */
  boolean nextIsMap(String field) throws EventDecodeException {
    return isMap(peek(field));
  }

  private static boolean isString(MessageFormat f) {
    return f == MessageFormat.FIXSTR || f == MessageFormat.STR8 || f == MessageFormat.STR16
        || f == MessageFormat.STR32;
  }

  private static boolean isMap(MessageFormat f) {
    return f == MessageFormat.FIXMAP || f == MessageFormat.MAP16 || f == MessageFormat.MAP32;
  }

  private static boolean isArray(MessageFormat f) {
    return f == MessageFormat.FIXARRAY || f == MessageFormat.ARRAY16 || f == MessageFormat.ARRAY32;
  }

  /** Consumes a nil if one is next; returns whether it did. */
  boolean tryNil(String field) throws EventDecodeException {
    if (nextIsNil(field)) {
      try {
        in.unpackNil();
      } catch (IOException | MessagePackException e) {
        throw translate(e, field);
      }
      return true;
    }
    return false;
  }

  /** Reads any msgpack integer as an unsigned 64-bit value; negative values are out of range. */
  long readU64(String field) throws EventDecodeException {
    MessageFormat f = peek(field);
    try {
      switch (f) {
        case UINT64 -> {
          if (remaining() < 9) {
            throw new EventDecodeException(Reason.TRUNCATED, field, "input ends inside an 8-byte value");
          }
          in.readPayload(scratch, 0, 9);
          long v = 0;
          for (int i = 1; i < 9; i++) {
            v = (v << 8) | (scratch[i] & 0xFFL);
          }
          return v;
        }
        case POSFIXINT, UINT8, UINT16, UINT32, NEGFIXINT, INT8, INT16, INT32, INT64 -> {
          long v = in.unpackLong();
          if (v < 0) {
            throw new EventDecodeException(Reason.OUT_OF_RANGE, field, "negative value " + v + " for an unsigned field");
          }
          return v;
        }
        default -> throw wrongType(field, "an integer");
      }
    } catch (IOException | MessagePackException e) {
      throw translate(e, field);
    }
  }

  /** Reads any msgpack integer that fits an unsigned 32-bit value. */
  int readU32(String field) throws EventDecodeException {
    long v = readU64(field);
    if (Long.compareUnsigned(v, 0xFFFF_FFFFL) > 0) {
      throw new EventDecodeException(
          Reason.OUT_OF_RANGE, field, Long.toUnsignedString(v) + " does not fit an unsigned 32-bit field");
    }
    return (int) v;
  }

  /** Reads a map header and returns its entry count (at most half the bytes that remain). */
  int readMapHeader(String field) throws EventDecodeException {
    if (!isMap(peek(field))) {
      throw wrongType(field, "a map");
    }
    try {
      return checkCount(in.unpackMapHeader(), 2, field);
    } catch (IOException | MessagePackException e) {
      throw translate(e, field);
    }
  }

  /** Reads an array header and returns its element count (at most the bytes that remain). */
  int readArrayHeader(String field) throws EventDecodeException {
    if (!isArray(peek(field))) {
      throw wrongType(field, "an array");
    }
    try {
      return checkCount(in.unpackArrayHeader(), 1, field);
    } catch (IOException | MessagePackException e) {
      throw translate(e, field);
    }
  }

  private int checkCount(long n, int minBytesEach, String field) throws EventDecodeException {
    int left = remaining();
    if (n * minBytesEach > left) {
      throw new EventDecodeException(Reason.OVERSIZE_LENGTH, field,
          "declares " + n + " elements but only " + left + " bytes remain");
    }
    return (int) n;
  }

  /** Reads a string header and returns the byte length; the cursor is left on the first byte. */
  private int readStringHeader(String field) throws EventDecodeException {
    if (!isString(peek(field))) {
      throw wrongType(field, "a string");
    }
    try {
      return checkCount(in.unpackRawStringHeader(), 1, field);
    } catch (IOException | MessagePackException e) {
      throw translate(e, field);
    }
  }

  /** Moves the cursor over {@code n} bytes that are known to remain. */
  private void skipRaw(int n, String field) throws EventDecodeException {
    if (n == 0) {
      return;
    }
    try {
      in.readPayloadAsReference(n);
    } catch (IOException | MessagePackException e) {
      throw translate(e, field);
    }
  }

  /** Reads a UTF-8 string (strictly: malformed UTF-8 is {@link Reason#INVALID_UTF8}). */
  String readString(String field) throws EventDecodeException {
    int n = readStringHeader(field);
    int at = position();
    skipRaw(n, field);
    return utf8(buf, at, n, field);
  }

  /**
   * Reads a string and returns the index of the equal entry of {@code names} (compared as bytes), or −1
   * if none is equal. {@code names} are ASCII and shorter than {@value #MAX_NAME} bytes.
   */
  int readName(byte[][] names, String field) throws EventDecodeException {
    int n = readStringHeader(field);
    if (n > MAX_NAME) {
      skipRaw(n, field);
      return -1;
    }
    try {
      in.readPayload(scratch, 0, n);
    } catch (IOException | MessagePackException e) {
      throw translate(e, field);
    }
    for (int i = 0; i < names.length; i++) {
      if (equalsScratch(names[i], n)) {
        return i;
      }
    }
    return -1;
  }

  private boolean equalsScratch(byte[] name, int n) {
    if (name.length != n) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (scratch[i] != name[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a map key: the index of the equal entry of {@code names}, or −1 for a key that is not one of
   * them (including a non-string key, which is skipped).
   */
  int readKey(byte[][] names, String field) throws EventDecodeException {
    if (nextIsString(field)) {
      return readName(names, field);
    }
    skipValue(field);
    return -1;
  }

  /**
   * Reads a byte string: a msgpack {@code bin}, or (leniently, as a {@code Vec<u8>} serialized without
   * {@code serde_bytes}) an array of integers 0..255.
   */
  Span readBytes(String field) throws EventDecodeException {
    MessageFormat f = peek(field);
    if (f == MessageFormat.BIN8 || f == MessageFormat.BIN16 || f == MessageFormat.BIN32) {
      int len;
      try {
        len = checkCount(in.unpackBinaryHeader(), 1, field);
      } catch (IOException | MessagePackException e) {
        throw translate(e, field);
      }
      Span s = new Span(position(), len, null);
      skipRaw(len, field);
      return s;
    }
    if (isArray(f)) {
      int n = readArrayHeader(field);
      byte[] out = new byte[n];
      for (int i = 0; i < n; i++) {
        long v = readU64(field);
        if (Long.compareUnsigned(v, 0xFF) > 0) {
          throw new EventDecodeException(Reason.OUT_OF_RANGE, field,
              "byte array element " + Long.toUnsignedString(v) + " exceeds 255");
        }
        out[i] = (byte) v;
      }
      return new Span(0, n, out);
    }
    throw wrongType(field, "binary data");
  }

  /** Immutable by contract: a byte range of the input, or a copied array when the bytes were not contiguous. */
  @SuppressWarnings("ArrayRecordComponent") // a decoder-internal carrier, never compared, hashed or printed
  record Span(int offset, int length, byte @Nullable [] copy) {}

  byte[] buffer() {
    return buf;
  }

  /** Skips one value of any type, following at most {@link #MAX_SKIP_DEPTH} levels of nesting. */
  void skipValue(String field) throws EventDecodeException {
    skip(field, 0);
  }

  private void skip(String field, int depth) throws EventDecodeException {
    if (depth > MAX_SKIP_DEPTH) {
      throw new EventDecodeException(Reason.TOO_DEEP, field, "ignored value nests deeper than " + MAX_SKIP_DEPTH);
    }
    MessageFormat f = peek(field);
    if (f == MessageFormat.NEVER_USED) {
      throw new EventDecodeException(Reason.WRONG_TYPE, field, "reserved msgpack byte 0xc1");
    }
    try {
      switch (f.getValueType()) {
        case MAP -> {
          int n = readMapHeader(field);
          for (int i = 0; i < n; i++) {
            skip(field, depth + 1);
            skip(field, depth + 1);
          }
          return;
        }
        case ARRAY -> {
          int n = readArrayHeader(field);
          for (int i = 0; i < n; i++) {
            skip(field, depth + 1);
          }
          return;
        }
        case STRING -> {
          skipRaw(readStringHeader(field), field);
          return;
        }
        case BINARY -> {
          skipRaw(checkCount(in.unpackBinaryHeader(), 1, field), field);
          return;
        }
        case EXTENSION -> {
          skipRaw(checkCount(in.unpackExtensionTypeHeader().getLength(), 1, field), field);
          return;
        }
        default -> in.skipValue(); // nil, boolean, integer, float: fixed size, bounds-checked by msgpack-core
      }
    } catch (IOException | MessagePackException e) {
      throw translate(e, field);
    }
  }

  EventDecodeException wrongType(String field, String expected) {
    String got;
    if (remaining() <= 0) {
      got = "end of input";
    } else {
      MessageFormat f = MessageFormat.valueOf(buf[position()]);
      got = f == MessageFormat.NEVER_USED ? "the reserved byte 0xc1" : describe(f);
    }
    return new EventDecodeException(Reason.WRONG_TYPE, field, "expected " + expected + ", got " + got);
  }

  private static String describe(MessageFormat f) {
    return switch (f.getValueType()) {
      case INTEGER -> "an integer";
      case MAP -> "a map";
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NIL -> "nil";
      case BOOLEAN -> "a boolean";
      case BINARY -> "binary data";
      case FLOAT -> "a float";
      default -> "an extension value";
    };
  }

  /** Maps a msgpack-core failure (bounds are checked first, so these are the leftovers) to a typed reason. */
  private static EventDecodeException translate(Exception e, String field) {
    if (e instanceof MessageInsufficientBufferException || e instanceof IOException) {
      return new EventDecodeException(Reason.TRUNCATED, field, "input ends inside a value");
    }
    if (e instanceof MessageSizeException) {
      return new EventDecodeException(Reason.OVERSIZE_LENGTH, field, "declared length does not fit: " + e.getMessage());
    }
    return new EventDecodeException(Reason.WRONG_TYPE, field, String.valueOf(e.getMessage()));
  }

  static String utf8(byte[] bytes, int offset, int length, String field) throws EventDecodeException {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, offset, length))
          .toString();
    } catch (CharacterCodingException e) {
      throw new EventDecodeException(Reason.INVALID_UTF8, field, "string is not valid UTF-8");
    }
  }
}
