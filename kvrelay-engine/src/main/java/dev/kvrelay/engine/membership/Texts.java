package dev.kvrelay.engine.membership;

import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the model-id text rules (non-empty, no surrounding Unicode White_Space, no
 * unpaired surrogate) and code-point order, as the api module applies them to registrations.
 */
final class Texts {
  static final Comparator<String> CODE_POINT_ORDER = Texts::compareCodePoints;

  private Texts() {}

  /** True if {@code value} is a valid model id / alias. */
  static boolean isValidId(@Nullable String value) {
    if (value == null || value.isEmpty()) {
      return false;
    }
    if (isWhitespace(value.codePointAt(0)) || isWhitespace(value.codePointBefore(value.length()))) {
      return false;
    }
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

  /** Unicode White_Space (Rust {@code char::is_whitespace}). */
  static boolean isWhitespace(int cp) {
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680
        || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F
        || cp == 0x3000;
  }

  /** Code-point order (= UTF-8 byte order). */
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
    return Boolean.compare(i < a.length(), j < b.length());
  }
}
