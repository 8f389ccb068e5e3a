package dev.kvrelay.api;

import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the text rules of the wire contract, under which a text field is non-empty,
 * well-formed UTF-16 (so it has an exact UTF-8 encoding) and has no leading or trailing whitespace.
 *
 * <p>"Whitespace" is Rust's {@code char::is_whitespace} (the Unicode {@code White_Space} property),
 * because upstream checks {@code value.trim() == value}; Java's {@link Character#isWhitespace} differs
 * (it misses U+00A0 and U+0085 and includes U+001C..U+001F).
 *
 * <p>This is the one implementation of these rules: the engine and the discovery SPI call it rather than
 * keeping copies.
 */
public final class WireText {

  /** Orders strings by code point, which equals byte-wise UTF-8 order (Rust {@code String} order). */
  public static final Comparator<String> CODE_POINT_ORDER = WireText::compareCodePoints;

  private static final String MUST_NOT_BE_EMPTY = "must not be empty";

  private WireText() {}

  /** Checks a text field from the wire; {@code null} (absent) counts as empty. */
  public static String check(String field, @Nullable String value) throws WireValidationException {
    if (value == null) {
      throw WireValidationException.malformed(field, MUST_NOT_BE_EMPTY);
    }
    String problem = problem(value);
    if (problem != null) {
      throw WireValidationException.malformed(field, problem);
    }
    return value;
  }

  /** Checks a text value from a trusted caller. */
  public static String require(String field, String value) {
    String problem = problem(value);
    if (problem != null) {
      throw new IllegalArgumentException(field + ": " + problem);
    }
    return value;
  }

  /** True if {@code value} satisfies the text rules. */
  public static boolean isValid(@Nullable String value) {
    return problem(value) == null;
  }

  /** What is wrong with {@code value}, or {@code null} if it is valid text. */
  public static @Nullable String problem(@Nullable String value) {
    if (value == null || value.isEmpty()) {
      return MUST_NOT_BE_EMPTY;
    }
    if (hasSurroundingWhitespace(value)) {
      return "must not contain leading or trailing whitespace";
    }
    if (!isWellFormed(value)) {
      return "contains an unpaired surrogate (not valid UTF-8 text)";
    }
    return null;
  }

  /** True if the first or last code point is Unicode White_Space. */
  public static boolean hasSurroundingWhitespace(String value) {
    if (value.isEmpty()) {
      return false;
    }
    return isUnicodeWhitespace(value.codePointAt(0))
        || isUnicodeWhitespace(value.codePointBefore(value.length()));
  }

  /** True if every surrogate in {@code value} is part of a pair. */
  public static boolean isWellFormed(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  /** The Unicode White_Space property, as Rust's {@code char::is_whitespace}. */
  public static boolean isUnicodeWhitespace(int cp) {
    return (cp >= 0x09 && cp <= 0x0D)
        || cp == 0x20
        || cp == 0x85
        || cp == 0xA0
        || cp == 0x1680
        || (cp >= 0x2000 && cp <= 0x200A)
        || cp == 0x2028
        || cp == 0x2029
        || cp == 0x202F
        || cp == 0x205F
        || cp == 0x3000;
  }

  /** Rust's {@code str::trim}: strips leading and trailing Unicode White_Space. */
  static String trim(String value) {
    int start = 0;
    int end = value.length();
    while (start < end && isUnicodeWhitespace(value.codePointAt(start))) {
      start += Character.charCount(value.codePointAt(start));
    }
    while (end > start && isUnicodeWhitespace(value.codePointBefore(end))) {
      end -= Character.charCount(value.codePointBefore(end));
    }
    return value.substring(start, end);
  }

  /** Rust's {@code to_ascii_lowercase}: lowercases A–Z only. */
  static String asciiLowercase(String value) {
    char[] chars = value.toCharArray();
    for (int i = 0; i < chars.length; i++) {
      if (chars[i] >= 'A' && chars[i] <= 'Z') {
        chars[i] = (char) (chars[i] + ('a' - 'A'));
      }
    }
    return new String(chars);
  }

  /** Code-point order (= UTF-8 byte order for well-formed strings). */
  public static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }
}
