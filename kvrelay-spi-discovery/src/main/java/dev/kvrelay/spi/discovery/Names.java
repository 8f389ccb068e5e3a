package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.WireText;
import org.jspecify.annotations.Nullable;

/** Stateless and thread-safe: text checks for names that appear in discovery keys and scopes. */
final class Names {
  private Names() {}

  /**
   * What is wrong with a name, or {@code null} if it is fine. Discovery names only need to be non-empty
   * well-formed UTF-16 (surrounding whitespace is allowed here, unlike the wire text rule of
   * {@link WireText#problem}); the well-formedness check is {@link WireText#isWellFormed}.
   */
  static @Nullable String problem(@Nullable String name) {
    if (name == null || name.isEmpty()) {
      return "must not be empty";
    }
    return WireText.isWellFormed(name) ? null : "contains an unpaired surrogate";
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

  /** True if every code point is White_Space (or the string is empty). */
  static boolean isBlank(String value) {
    return value.codePoints().allMatch(WireText::isUnicodeWhitespace);
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
