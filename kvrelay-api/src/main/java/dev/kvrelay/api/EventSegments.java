package dev.kvrelay.api;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Stateless and thread-safe: the percent encoding of one segment of an event-channel / event-source path
 * or event-plane subject ({@code runtime-inputs.md} §1.3), the only implementation of that format in
 * kvrelay. UTF-8 bytes {@code [A-Za-z0-9_-]} pass through; every other byte becomes {@code %HH} with
 * uppercase hex: {@code ns.a/b} → {@code ns%2Ea%2Fb}.
 *
 * <p>{@link #decode} accepts only the canonical form that {@link #encode} writes, so that {@code
 * encode(decode(s)).equals(s)} for every accepted {@code s}.
 */
public final class EventSegments {
  /** The field {@link #decode} names in its {@link WireValidationException}. */
  static final String FIELD = "event_segment";

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private EventSegments() {}

  /**
   * Encodes a segment ({@code ""} encodes to {@code ""}).
   *
   * @throws IllegalArgumentException if {@code segment} has an unpaired surrogate (no UTF-8 form)
   */
  public static String encode(String segment) {
    if (!WireText.isWellFormed(segment)) {
      throw new IllegalArgumentException("event path segment contains an unpaired surrogate");
    }
    byte[] bytes = segment.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      if (isUnreserved(b)) {
        out.append((char) b);
      } else {
        out.append('%').append(HEX[(b >>> 4) & 0xF]).append(HEX[b & 0xF]);
      }
    }
    return out.toString();
  }

  /**
   * Decodes a segment written by {@link #encode}. Only the canonical form is accepted: unreserved bytes
   * unescaped, every other byte as {@code %HH} with uppercase hex, and the bytes valid UTF-8. Emptiness
   * is the caller's rule ({@code ""} decodes to {@code ""}).
   *
   * @throws WireValidationException ({@link WireValidationException.Kind#MALFORMED}, field {@code event_segment})
   *     otherwise
   */
  public static String decode(String encoded) throws WireValidationException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c == '%') {
        int hi = i + 1 < encoded.length() ? hexValue(encoded.charAt(i + 1)) : -1;
        int lo = i + 2 < encoded.length() ? hexValue(encoded.charAt(i + 2)) : -1;
        if (hi < 0 || lo < 0) {
          throw invalid(encoded, "'%' must be followed by two uppercase hex digits");
        }
        byte b = (byte) ((hi << 4) | lo);
        if (isUnreserved(b)) {
          throw invalid(encoded, "'" + (char) b + "' must not be percent-encoded");
        }
        bytes.write(b);
        i += 2;
      } else if (c < 0x80 && isUnreserved((byte) c)) {
        bytes.write(c);
      } else {
        throw invalid(encoded, "character " + (c >= 0x20 && c < 0x7F ? "'" + c + "'" : String.format("U+%04X", (int) c))
            + " must be percent-encoded");
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw invalid(encoded, "percent-encoded bytes are not valid UTF-8");
    }
  }

  private static WireValidationException invalid(String encoded, String why) {
    return WireValidationException.malformed(FIELD, "event path segment '" + encoded + "': " + why);
  }

  private static boolean isUnreserved(byte b) {
    return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '_' || b == '-';
  }

  private static int hexValue(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
