package dev.kvrelay.api;

import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import org.quicktheories.core.Gen;

/** QuickTheories generators shared by the property tests. */
final class TestGens {
  private TestGens() {}

  /** Code points from ASCII, the rest of the BMP (no surrogates), and the supplementary planes. */
  static Gen<Integer> codePoints() {
    return integers().between(0, 0x7F)
        .mix(integers().between(0x80, 0xD7FF), 30)
        .mix(integers().between(0xE000, 0xFFFF), 25)
        .mix(integers().between(0x10000, 0x10FFFF), 25);
  }

  /** Well-formed (surrogate-pair-correct) strings of {@code min..max} code points. */
  static Gen<String> wellFormed(int min, int max) {
    return lists().of(codePoints()).ofSizeBetween(min, max).map(cps -> {
      StringBuilder sb = new StringBuilder();
      cps.forEach(sb::appendCodePoint);
      return sb.toString();
    });
  }

  /** Strings that satisfy the wire text rules: whitespace at either end is replaced by 'x'. */
  static Gen<String> validText(int min, int max) {
    return lists().of(codePoints()).ofSizeBetween(Math.max(1, min), max).map(cps -> {
      int last = cps.size() - 1;
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i <= last; i++) {
        int cp = cps.get(i);
        boolean edge = i == 0 || i == last;
        sb.appendCodePoint(edge && isUnicodeWhitespace(cp) ? 'x' : cp);
      }
      return sb.toString();
    });
  }

  /** The Unicode White_Space list, written out independently of the code under test. */
  private static boolean isUnicodeWhitespace(int cp) {
    return java.util.Set.of(0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x2001, 0x2002,
            0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
        .contains(cp);
  }

  /** Non-zero longs of either sign, without rejection sampling. */
  static Gen<Long> nonZeroLongs() {
    return org.quicktheories.generators.SourceDSL.longs().between(1, Long.MAX_VALUE)
        .mix(org.quicktheories.generators.SourceDSL.longs().between(Long.MIN_VALUE, -1));
  }
}
