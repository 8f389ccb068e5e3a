package dev.kvrelay.engine;

import java.math.BigInteger;
import org.jspecify.annotations.Nullable;

/** Stateless and thread-safe text rules of the configuration: whitespace, Python {@code int()} and booleans. */
final class ConfigText {
  private ConfigText() {}

  /** Rust {@code char::is_whitespace} (Unicode White_Space). */
  static boolean isRustWhitespace(int cp) {
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680
        || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F
        || cp == 0x3000;
  }

  /** Python {@code str.isspace} for one code point (adds the separators U+001C..U+001F). */
  static boolean isPythonWhitespace(int cp) {
    return isRustWhitespace(cp) || (cp >= 0x1C && cp <= 0x1F);
  }

  /** True if empty or only whitespace. */
  static boolean isBlank(String s) {
    return pythonStrip(s).isEmpty();
  }

  /** True if the first or last code point is whitespace. */
  static boolean hasSurroundingWhitespace(String s) {
    return !s.isEmpty()
        && (isPythonWhitespace(s.codePointAt(0)) || isPythonWhitespace(s.codePointBefore(s.length())));
  }

  /** Python {@code str.strip()}. */
  static String pythonStrip(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && isPythonWhitespace(s.codePointAt(start))) {
      start += Character.charCount(s.codePointAt(start));
    }
    while (end > start && isPythonWhitespace(s.codePointBefore(end))) {
      end -= Character.charCount(s.codePointBefore(end));
    }
    return s.substring(start, end);
  }

  /**
   * Python {@code int(text)}: surrounding whitespace, an optional sign, decimal digits (any Unicode Nd)
   * with single underscores between digits.
   *
   * @return the value, or null if Python would raise {@code ValueError}
   */
  static @Nullable BigInteger pythonInt(String text) {
    String s = pythonStrip(text);
    int i = 0;
    boolean negative = false;
    if (!s.isEmpty() && (s.charAt(0) == '+' || s.charAt(0) == '-')) {
      negative = s.charAt(0) == '-';
      i = 1;
    }
    StringBuilder digits = new StringBuilder();
    boolean lastWasDigit = false;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == '_') {
        if (!lastWasDigit) {
          return null;
        }
        lastWasDigit = false;
        continue;
      }
      int d = Character.getType(cp) == Character.DECIMAL_DIGIT_NUMBER ? Character.digit(cp, 10) : -1;
      if (d < 0) {
        return null;
      }
      digits.append((char) ('0' + d));
      lastWasDigit = true;
    }
    if (digits.length() == 0 || !lastWasDigit) {
      return null;
    }
    BigInteger v = new BigInteger(digits.toString());
    return negative ? v.negate() : v;
  }

  /** The launcher's boolean: strip + lowercase; {@code 1/true/yes/on}, {@code 0/false/no/off}; else null. */
  static @Nullable Boolean parseBoolean(String text) {
    return switch (pythonStrip(text).toLowerCase(java.util.Locale.ROOT)) {
      case "1", "true", "yes", "on" -> Boolean.TRUE;
      case "0", "false", "no", "off" -> Boolean.FALSE;
      default -> null;
    };
  }
}
