package dev.kvrelay.api.json;

import java.util.Objects;

/**
 * Immutable and thread-safe: a JSON number kept as its exact text, so that integers up to 2^64 − 1 and
 * beyond survive unchanged (no float64 rounding). Typed accessors convert on demand and fail with a
 * {@link JsonException} ({@link JsonException.Reason#NOT_AN_INTEGER} or {@link
 * JsonException.Reason#NUMBER_OUT_OF_RANGE}) instead of rounding or wrapping.
 *
 * @param text the number exactly as written, matching the RFC 8259 grammar
 *     {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}
 */
public record JsonNumber(String text) implements JsonValue {

  private static final int MAX_U64_DIGITS = 20;

  /**
   * @throws IllegalArgumentException if {@code text} is not an RFC 8259 number
   */
  public JsonNumber {
    Objects.requireNonNull(text, "text");
    if (scan(text, 0) != text.length()) {
      throw new IllegalArgumentException("not a JSON number: '" + text + "'");
    }
  }

  /** The number for a signed long. */
  public static JsonNumber of(long value) {
    return new JsonNumber(Long.toString(value));
  }

  /** The number for a u64 carried in a long ({@code -1L} is 18446744073709551615). */
  public static JsonNumber ofUnsigned(long value) {
    return new JsonNumber(Long.toUnsignedString(value));
  }

  /**
   * The number for a finite double, in Java's shortest round-trip form (e.g. {@code 0.5}, {@code 1.0E10}).
   *
   * @throws IllegalArgumentException if {@code value} is NaN or infinite
   */
  public static JsonNumber of(double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("JSON has no representation for " + value);
    }
    return new JsonNumber(Double.toString(value));
  }

  /** True if the text has no fraction and no exponent. */
  public boolean isIntegral() {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '.' || c == 'e' || c == 'E') {
        return false;
      }
    }
    return true;
  }

  /**
   * The value as an unsigned 64-bit integer (0..2^64 − 1) carried in a {@code long}; compare it with
   * {@link Long#compareUnsigned}.
   *
   * @throws JsonException {@code NOT_AN_INTEGER} for a fraction, an exponent or a minus sign (including
   *     {@code -0}); {@code NUMBER_OUT_OF_RANGE} above 2^64 − 1
   */
  public long asUnsignedLong() throws JsonException {
    if (!isIntegral() || text.charAt(0) == '-') {
      throw JsonException.of(JsonException.Reason.NOT_AN_INTEGER, -1,
          "expected an unsigned integer, got " + text);
    }
    if (text.length() > MAX_U64_DIGITS) {
      throw outOfRange("0..18446744073709551615");
    }
    try {
      return Long.parseUnsignedLong(text);
    } catch (NumberFormatException e) {
      throw outOfRange("0..18446744073709551615");
    }
  }

  /**
   * The value as a signed 64-bit integer.
   *
   * @throws JsonException {@code NOT_AN_INTEGER} for a fraction or exponent; {@code NUMBER_OUT_OF_RANGE}
   *     outside the {@code long} range
   */
  public long asLong() throws JsonException {
    if (!isIntegral()) {
      throw JsonException.of(JsonException.Reason.NOT_AN_INTEGER, -1, "expected an integer, got " + text);
    }
    if (text.length() > MAX_U64_DIGITS) {
      throw outOfRange(Long.MIN_VALUE + ".." + Long.MAX_VALUE);
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw outOfRange(Long.MIN_VALUE + ".." + Long.MAX_VALUE);
    }
  }

  /**
   * The value as a signed 32-bit integer.
   *
   * @throws JsonException as {@link #asLong()}, and {@code NUMBER_OUT_OF_RANGE} outside the {@code int} range
   */
  public int asInt() throws JsonException {
    long v;
    try {
      v = asLong();
    } catch (JsonException e) {
      if (e.reason() == JsonException.Reason.NUMBER_OUT_OF_RANGE) {
        throw outOfRange(Integer.MIN_VALUE + ".." + Integer.MAX_VALUE);
      }
      throw e;
    }
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw outOfRange(Integer.MIN_VALUE + ".." + Integer.MAX_VALUE);
    }
    return (int) v;
  }

  /**
   * The nearest double.
   *
   * @throws JsonException {@code NUMBER_OUT_OF_RANGE} if the magnitude overflows to infinity
   */
  public double asDouble() throws JsonException {
    double d = Double.parseDouble(text);
    if (Double.isInfinite(d)) {
      throw outOfRange("finite doubles");
    }
    return d;
  }

  private JsonException outOfRange(String range) {
    return JsonException.of(JsonException.Reason.NUMBER_OUT_OF_RANGE, -1,
        "number " + abbreviated() + " is outside " + range);
  }

  private String abbreviated() {
    return text.length() <= 40 ? text : text.substring(0, 40) + "…";
  }

  /**
   * Scans an RFC 8259 number starting at {@code start}.
   *
   * @return the index just past the number, or the index of the first offending character negated and
   *     minus one ({@code -(index) - 1}) if the grammar is broken there
   */
  static int scan(CharSequence s, int start) {
    int i = start;
    int n = s.length();
    if (i < n && s.charAt(i) == '-') {
      i++;
    }
    if (i >= n) {
      return -i - 1;
    }
    char c = s.charAt(i);
    if (c == '0') {
      i++;
    } else if (c >= '1' && c <= '9') {
      i++;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
      }
    } else {
      return -i - 1;
    }
    if (i < n && s.charAt(i) == '.') {
      i++;
      if (i >= n || !isDigit(s.charAt(i))) {
        return -i - 1;
      }
      while (i < n && isDigit(s.charAt(i))) {
        i++;
      }
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        i++;
      }
      if (i >= n || !isDigit(s.charAt(i))) {
        return -i - 1;
      }
      while (i < n && isDigit(s.charAt(i))) {
        i++;
      }
    }
    return i;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  @Override
  public String typeName() {
    return "number";
  }

  @Override
  public String toString() {
    return text;
  }
}
