package dev.kvrelay.discovery.file;

import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Stateless and thread-safe: the file-name form of a key inside its bucket directory ({@code plugins-wire §8}
 * "Key → file"): every UTF-8 byte outside {@code [A-Za-z0-9]} becomes {@code %XX} with uppercase hex, so
 * {@code dynamo/backend/generate/17216e63492ef21f} is stored as {@code dynamo%2Fbackend%2Fgenerate%2F17216e63492ef21f}.
 * (Not {@link java.net.URLEncoder}, which keeps {@code . - _ *} and writes spaces as {@code +}.)
 */
public final class KeyFileNames {
  /** Names starting with this are a writer's temporary files, never keys. */
  public static final String TEMP_PREFIX = ".tmp_";

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private KeyFileNames() {}

  /** The file name of {@code key}. */
  public static String encode(String key) {
    byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(utf8.length * 3);
    for (byte b : utf8) {
      int c = b & 0xFF;
      if (isUnreserved(c)) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    return out.toString();
  }

  /**
   * The key a file name stands for.
   *
   * @throws DiscoveryDecodeException (INVALID_PATH) unless {@code name} is exactly {@link #encode} of some
   *     key: a bad or lowercase escape, a byte left unencoded, or escapes that are not UTF-8
   */
  public static String decode(String name) throws DiscoveryDecodeException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < 0x80 && isUnreserved(c)) {
        bytes.write(c);
      } else if (c == '%' && i + 2 < name.length() && hex(name.charAt(i + 1)) >= 0 && hex(name.charAt(i + 2)) >= 0) {
        int value = hex(name.charAt(i + 1)) << 4 | hex(name.charAt(i + 2));
        if (isUnreserved(value)) {
          throw invalid("escapes a character that is stored as itself");
        }
        bytes.write(value);
        i += 2;
      } else {
        throw invalid(c == '%' ? "has a malformed %XX escape" : "has a character that must be percent-encoded");
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw invalid("escapes bytes that are not UTF-8");
    }
  }

  /** True for a writer's temporary file name ({@code .tmp_…}), which readers skip. */
  public static boolean isTemporary(String name) {
    return name.startsWith(TEMP_PREFIX);
  }

  private static boolean isUnreserved(int c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  /** Uppercase hex digit value, or -1 (lowercase escapes are not what writers produce). */
  private static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  private static DiscoveryDecodeException invalid(String why) {
    return new DiscoveryDecodeException(DiscoveryDecodeException.Reason.INVALID_PATH, "",
        "the file name " + why + " (plugins-wire §8: every byte outside [A-Za-z0-9] is %XX, uppercase)");
  }
}
