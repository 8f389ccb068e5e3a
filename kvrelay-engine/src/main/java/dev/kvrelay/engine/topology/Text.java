package dev.kvrelay.engine.topology;

import dev.kvrelay.api.WireValidationException;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/** Immutable and thread-safe: text rules of the wire contract and Rust {@code String} ordering. */
final class Text {
  /** Code-point order, which equals UTF-8 byte order (Rust {@code String} order). */
  static final Comparator<String> CODE_POINT_ORDER = Text::compareCodePoints;

  private Text() {}

  static int compareCodePoints(String a, String b) {
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
    return Integer.compare(a.length() - i, b.length() - j);
  }

  /** What is wrong with {@code value} as wire text, or {@code null} if valid. */
  static @Nullable String problem(@Nullable String value) {
    if (value == null || value.isEmpty()) {
      return "must not be empty";
    }
    if (isUnicodeWhitespace(value.codePointAt(0))
        || isUnicodeWhitespace(value.codePointBefore(value.length()))) {
      return "must not contain leading or trailing whitespace";
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
          return "contains an unpaired surrogate (not valid UTF-8 text)";
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return "contains an unpaired surrogate (not valid UTF-8 text)";
      }
    }
    return null;
  }

  static String check(String field, @Nullable String value) throws WireValidationException {
    String problem = problem(value);
    if (problem != null || value == null) {
      throw WireValidationException.malformed(field, problem == null ? "must not be empty" : problem);
    }
    return value;
  }

  static String require(String field, String value) {
    String problem = problem(value);
    if (problem != null) {
      throw new IllegalArgumentException(field + ": " + problem);
    }
    return value;
  }

  /** The Unicode White_Space property, as Rust's {@code char::is_whitespace}. */
  static boolean isUnicodeWhitespace(int cp) {
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
}
