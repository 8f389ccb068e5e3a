package dev.kvrelay.spi.discovery;

import org.jspecify.annotations.Nullable;

/** Stateless and thread-safe: text checks for names that appear in discovery keys and scopes. */
final class Names {
  private Names() {}

  /** What is wrong with a name (non-empty, well-formed UTF-16), or {@code null} if it is fine. */
  static @Nullable String problem(@Nullable String name) {
    if (name == null || name.isEmpty()) {
      return "must not be empty";
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= name.length() || !Character.isLowSurrogate(name.charAt(i + 1))) {
          return "contains an unpaired surrogate";
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return "contains an unpaired surrogate";
      }
    }
    return null;
  }

  /** Requires a valid name from a trusted caller. */
  static String require(String what, String name) {
    String problem = problem(name);
    if (problem != null) {
      throw new IllegalArgumentException(what + " " + problem);
    }
    return name;
  }

  /** Requires a valid name that also contains no {@code /} (instance and model-card path parts). */
  static String requirePathPart(String what, String name) {
    require(what, name);
    if (name.indexOf('/') >= 0) {
      throw new IllegalArgumentException(what + " must not contain '/' (instance and model-card paths are not encoded)");
    }
    return name;
  }

  /** True if the first or last code point is Unicode White_Space (Rust {@code char::is_whitespace}). */
  static boolean hasSurroundingWhitespace(String value) {
    return !value.isEmpty()
        && (isUnicodeWhitespace(value.codePointAt(0)) || isUnicodeWhitespace(value.codePointBefore(value.length())));
  }

  /** True if every code point is White_Space (or the string is empty). */
  static boolean isBlank(String value) {
    return value.codePoints().allMatch(Names::isUnicodeWhitespace);
  }

  private static boolean isUnicodeWhitespace(int cp) {
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680
        || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F
        || cp == 0x3000;
  }

  /** Lowercase hex without padding or prefix ({@code {:x}} of a u64). */
  static String hex(long id) {
    return Long.toHexString(id);
  }

  /**
   * Parses a canonical lowercase hex u64 (1..16 digits, no leading zero unless the value is 0).
   *
   * @throws DiscoveryDecodeException (INVALID_PATH) otherwise
   */
  static long parseHex(String text, String path) throws DiscoveryDecodeException {
    boolean ok = !text.isEmpty() && text.length() <= 16 && (text.length() == 1 || text.charAt(0) != '0');
    for (int i = 0; ok && i < text.length(); i++) {
      char c = text.charAt(i);
      ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }
    if (!ok) {
      throw new DiscoveryDecodeException(DiscoveryDecodeException.Reason.INVALID_PATH, "", path,
          "'" + text + "' is not a lowercase hex id", null);
    }
    return Long.parseUnsignedLong(text, 16);
  }
}
