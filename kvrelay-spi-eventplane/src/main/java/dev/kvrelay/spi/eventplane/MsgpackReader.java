package dev.kvrelay.spi.eventplane;

import dev.kvrelay.spi.eventplane.EventDecodeException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to one decode call. A bounds-checked msgpack cursor over a byte range that
 * reports every defect as an {@link EventDecodeException} and never allocates from a declared length
 * before checking it against the bytes that remain.
 */
final class MsgpackReader {
  /** How deep an ignored (unknown) value may nest before the decoder gives up. */
  static final int MAX_SKIP_DEPTH = 64;

  private final byte[] buf;
  private final int end;
  private int pos;

  MsgpackReader(byte[] buf, int offset, int length) {
    this.buf = buf;
    this.pos = offset;
    this.end = offset + length;
  }

  int remaining() {
    return end - pos;
  }

  void expectEnd(String field) throws EventDecodeException {
    if (pos != end) {
      throw new EventDecodeException(Reason.TRAILING_BYTES, field, (end - pos) + " bytes after the value");
    }
  }

  private int peek(String field) throws EventDecodeException {
    if (pos >= end) {
      throw new EventDecodeException(Reason.TRUNCATED, field, "input ends where a value starts");
    }
    return buf[pos] & 0xFF;
  }

  private int u8(String field) throws EventDecodeException {
    int b = peek(field);
    pos++;
    return b;
  }

  private long fixed(int bytes, String field) throws EventDecodeException {
    if (end - pos < bytes) {
      throw new EventDecodeException(Reason.TRUNCATED, field, "input ends inside a " + bytes + "-byte value");
    }
    long v = 0;
    for (int i = 0; i < bytes; i++) {
      v = (v << 8) | (buf[pos + i] & 0xFFL);
    }
    pos += bytes;
    return v;
  }

  /** True if the next value is nil (not consumed). */
  boolean nextIsNil(String field) throws EventDecodeException {
    return peek(field) == 0xC0;
  }

  /** True if the next value is a string (not consumed). */
  boolean nextIsString(String field) throws EventDecodeException {
    int b = peek(field);
    return (b >= 0xA0 && b <= 0xBF) || b == 0xD9 || b == 0xDA || b == 0xDB;
  }

  /** True if the next value is a map (not consumed). */
  boolean nextIsMap(String field) throws EventDecodeException {
    int b = peek(field);
    return (b >= 0x80 && b <= 0x8F) || b == 0xDE || b == 0xDF;
  }

  /** Consumes a nil if one is next; returns whether it did. */
  boolean tryNil(String field) throws EventDecodeException {
    if (nextIsNil(field)) {
      pos++;
      return true;
    }
    return false;
  }

  /** Reads any msgpack integer as an unsigned 64-bit value; negative values are out of range. */
  long readU64(String field) throws EventDecodeException {
    int b = u8(field);
    if (b <= 0x7F) {
      return b;
    }
    long v;
    switch (b) {
      case 0xCC: return fixed(1, field);
      case 0xCD: return fixed(2, field);
      case 0xCE: return fixed(4, field);
      case 0xCF: return fixed(8, field);
      case 0xD0: v = (byte) fixed(1, field); break;
      case 0xD1: v = (short) fixed(2, field); break;
      case 0xD2: v = (int) fixed(4, field); break;
      case 0xD3: v = fixed(8, field); break;
      default:
        if (b >= 0xE0) {
          v = (byte) b;
          break;
        }
        pos--;
        throw wrongType(field, "an integer");
    }
    if (v < 0) {
      throw new EventDecodeException(Reason.OUT_OF_RANGE, field, "negative value " + v + " for an unsigned field");
    }
    return v;
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
    int b = u8(field);
    long n;
    if (b >= 0x80 && b <= 0x8F) {
      n = b & 0x0F;
    } else if (b == 0xDE) {
      n = fixed(2, field);
    } else if (b == 0xDF) {
      n = fixed(4, field);
    } else {
      pos--;
      throw wrongType(field, "a map");
    }
    return checkCount(n, 2, field);
  }

  /** Reads an array header and returns its element count (at most the bytes that remain). */
  int readArrayHeader(String field) throws EventDecodeException {
    int b = u8(field);
    long n;
    if (b >= 0x90 && b <= 0x9F) {
      n = b & 0x0F;
    } else if (b == 0xDC) {
      n = fixed(2, field);
    } else if (b == 0xDD) {
      n = fixed(4, field);
    } else {
      pos--;
      throw wrongType(field, "an array");
    }
    return checkCount(n, 1, field);
  }

  private int checkCount(long n, int minBytesEach, String field) throws EventDecodeException {
    if (n * minBytesEach > end - pos) {
      throw new EventDecodeException(Reason.OVERSIZE_LENGTH, field,
          "declares " + n + " elements but only " + (end - pos) + " bytes remain");
    }
    return (int) n;
  }

  /** Reads a string header and returns the byte length; the cursor is left on the first byte. */
  private int readStringHeader(String field) throws EventDecodeException {
    int b = u8(field);
    long n;
    if (b >= 0xA0 && b <= 0xBF) {
      n = b & 0x1F;
    } else if (b == 0xD9) {
      n = fixed(1, field);
    } else if (b == 0xDA) {
      n = fixed(2, field);
    } else if (b == 0xDB) {
      n = fixed(4, field);
    } else {
      pos--;
      throw wrongType(field, "a string");
    }
    return checkCount(n, 1, field);
  }

  /** Reads a UTF-8 string. */
  String readString(String field) throws EventDecodeException {
    int n = readStringHeader(field);
    String s = utf8(buf, pos, n, field);
    pos += n;
    return s;
  }

  /**
   * Reads a string and returns the index of the equal entry of {@code names} (compared as bytes), or −1
   * if none is equal. {@code names} are ASCII.
   */
  int readName(byte[][] names, String field) throws EventDecodeException {
    int n = readStringHeader(field);
    int start = pos;
    pos += n;
    for (int i = 0; i < names.length; i++) {
      if (equalsRange(names[i], start, n)) {
        return i;
      }
    }
    return -1;
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

  /** The bytes of the last string read by {@link #readName}, for messages; decoded leniently. */
  String describeLastName(int length) {
    int n = Math.min(length, 64);
    return new String(buf, pos - length, n, StandardCharsets.UTF_8);
  }

  private boolean equalsRange(byte[] name, int start, int n) {
    if (name.length != n) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (buf[start + i] != name[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads a byte string: a msgpack {@code bin}, or (leniently, as a {@code Vec<u8>} serialized without
   * {@code serde_bytes}) an array of integers 0..255.
   */
  Span readBytes(String field) throws EventDecodeException {
    int b = peek(field);
    if (b == 0xC4 || b == 0xC5 || b == 0xC6) {
      pos++;
      long n = fixed(b == 0xC4 ? 1 : b == 0xC5 ? 2 : 4, field);
      int len = checkCount(n, 1, field);
      Span s = new Span(pos, len, null);
      pos += len;
      return s;
    }
    if ((b >= 0x90 && b <= 0x9F) || b == 0xDC || b == 0xDD) {
      int n = readArrayHeader(field);
      byte[] out = new byte[n];
      for (int i = 0; i < n; i++) {
        long v = readU64(field);
        if (v > 0xFF) {
          throw new EventDecodeException(Reason.OUT_OF_RANGE, field, "byte array element " + v + " exceeds 255");
        }
        out[i] = (byte) v;
      }
      return new Span(0, n, out);
    }
    throw wrongType(field, "binary data");
  }

  /** Immutable by contract: a byte range of the input, or a copied array when the bytes were not contiguous. */
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
    int b = peek(field);
    if (b <= 0x7F || b >= 0xE0 || b == 0xC0 || b == 0xC2 || b == 0xC3) {
      pos++;
      return;
    }
    if ((b >= 0x80 && b <= 0x8F) || b == 0xDE || b == 0xDF) {
      int n = readMapHeader(field);
      for (int i = 0; i < n; i++) {
        skip(field, depth + 1);
        skip(field, depth + 1);
      }
      return;
    }
    if ((b >= 0x90 && b <= 0x9F) || b == 0xDC || b == 0xDD) {
      int n = readArrayHeader(field);
      for (int i = 0; i < n; i++) {
        skip(field, depth + 1);
      }
      return;
    }
    if ((b >= 0xA0 && b <= 0xBF) || b == 0xD9 || b == 0xDA || b == 0xDB) {
      int n = readStringHeader(field);
      pos += n;
      return;
    }
    pos++;
    switch (b) {
      case 0xC4: skipBytes(fixed(1, field), field); return;
      case 0xC5: skipBytes(fixed(2, field), field); return;
      case 0xC6: skipBytes(fixed(4, field), field); return;
      case 0xC7: skipBytes(fixed(1, field) + 1, field); return;
      case 0xC8: skipBytes(fixed(2, field) + 1, field); return;
      case 0xC9: skipBytes(fixed(4, field) + 1, field); return;
      case 0xCA: skipBytes(4, field); return;
      case 0xCB: skipBytes(8, field); return;
      case 0xCC: case 0xD0: skipBytes(1, field); return;
      case 0xCD: case 0xD1: skipBytes(2, field); return;
      case 0xCE: case 0xD2: skipBytes(4, field); return;
      case 0xCF: case 0xD3: skipBytes(8, field); return;
      case 0xD4: skipBytes(2, field); return;
      case 0xD5: skipBytes(3, field); return;
      case 0xD6: skipBytes(5, field); return;
      case 0xD7: skipBytes(9, field); return;
      case 0xD8: skipBytes(17, field); return;
      default:
        pos--;
        throw new EventDecodeException(Reason.WRONG_TYPE, field, "reserved msgpack byte 0xc1");
    }
  }

  private void skipBytes(long n, String field) throws EventDecodeException {
    if (n > end - pos) {
      throw new EventDecodeException(Reason.OVERSIZE_LENGTH, field,
          "declares " + n + " bytes but only " + (end - pos) + " remain");
    }
    pos += (int) n;
  }

  EventDecodeException wrongType(String field, String expected) {
    String got = pos < end ? describe(buf[pos] & 0xFF) : "end of input";
    return new EventDecodeException(Reason.WRONG_TYPE, field, "expected " + expected + ", got " + got);
  }

  private static String describe(int b) {
    if (b <= 0x7F || b >= 0xE0 || (b >= 0xCC && b <= 0xD3)) {
      return "an integer";
    }
    if ((b >= 0x80 && b <= 0x8F) || b == 0xDE || b == 0xDF) {
      return "a map";
    }
    if ((b >= 0x90 && b <= 0x9F) || b == 0xDC || b == 0xDD) {
      return "an array";
    }
    if ((b >= 0xA0 && b <= 0xBF) || (b >= 0xD9 && b <= 0xDB)) {
      return "a string";
    }
    switch (b) {
      case 0xC0: return "nil";
      case 0xC2: case 0xC3: return "a boolean";
      case 0xC4: case 0xC5: case 0xC6: return "binary data";
      case 0xCA: case 0xCB: return "a float";
      case 0xC1: return "the reserved byte 0xc1";
      default: return "an extension value";
    }
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
