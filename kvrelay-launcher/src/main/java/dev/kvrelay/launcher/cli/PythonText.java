package dev.kvrelay.launcher.cli;

/**
 * Stateless and thread-safe: Python {@code str.strip()} / {@code str.isspace()} as the upstream CLI applies
 * them to flag values ({@code producer.md} §7.1). The engine's environment reader has the same rules
 * package-private; this copy serves the values the CLI layer checks before composing them over the
 * environment.
 */
final class PythonText {
  private PythonText() {}

  /** Python {@code str.isspace} for one code point (Unicode White_Space plus U+001C..U+001F). */
  static boolean isSpace(int cp) {
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680
        || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F
        || cp == 0x3000;
  }

  /** Python {@code str.strip()}. */
  static String strip(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && isSpace(s.codePointAt(start))) {
      start += Character.charCount(s.codePointAt(start));
    }
    while (end > start && isSpace(s.codePointBefore(end))) {
      end -= Character.charCount(s.codePointBefore(end));
    }
    return s.substring(start, end);
  }

  /** True if empty or only whitespace. */
  static boolean isBlank(String s) {
    return strip(s).isEmpty();
  }

  /** True if {@code s} differs from its strip (leading or trailing whitespace). */
  static boolean hasSurroundingWhitespace(String s) {
    return !strip(s).equals(s);
  }
}
