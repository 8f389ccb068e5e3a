package dev.kvrelay.api;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (the digest is copied on the way in and out): a 16-byte identity digest with
 * its {@link IdentitySource} (wire {@code DigestIdentity}).
 *
 * <p>Text form ({@link #toString()}): 32 lowercase hex digits of the digest; the source is not part of
 * the text. Ordered by digest bytes (unsigned, lexicographic), then source
 * ({@code DEFAULT_DERIVED < EXPLICIT}).
 *
 * <p>{@code ArrayRecordComponent} is suppressed: the digest is copied in and out, and equality, hash and text
 * use its contents.
 *
 * @param digest exactly {@value #DIGEST_BYTES} bytes
 * @param source where the material came from
 */
@SuppressWarnings("ArrayRecordComponent")
public record DigestIdentity(byte[] digest, IdentitySource source) implements Comparable<DigestIdentity> {

  /** Digest length in bytes. */
  public static final int DIGEST_BYTES = 16;

  private static final HexFormat HEX = HexFormat.of();

  /**
   * Trusted constructor.
   *
   * @throws IllegalArgumentException if the digest is not 16 bytes
   */
  public DigestIdentity {
    Objects.requireNonNull(digest, "digest");
    Objects.requireNonNull(source, "source");
    if (digest.length != DIGEST_BYTES) {
      throw new IllegalArgumentException("digest must be 16 bytes, got " + digest.length);
    }
    digest = digest.clone();
  }

  /**
   * Thread-safe if the array is not mutated (it is not copied): the unvalidated wire shape
   * {@code bytes digest = 1; IdentitySource source = 2} (enum number). Equality compares the digest bytes.
   *
   * <p>{@code ArrayRecordComponent} is suppressed: equals/hashCode/toString use the array's contents.
   */
  @SuppressWarnings("ArrayRecordComponent")
  public record Wire(byte @Nullable [] digest, int source) {
    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof Wire w && source == w.source && Arrays.equals(digest, w.digest);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(digest) + source;
    }

    @Override
    public String toString() {
      return "Wire[digest=" + (digest == null ? "absent" : HEX.formatHex(digest)) + ", source=" + source + "]";
    }
  }

  /**
   * Validates wire values: digest length ≠ 16 (absent counts as empty) is malformed; source 0 is
   * malformed, an unknown source unsupported.
   */
  public static DigestIdentity fromWire(byte @Nullable [] digest, int source) throws WireValidationException {
    return fromWire("", digest, source);
  }

  /** Validates a wire digest identity; see {@link #fromWire(byte[], int)}. */
  public static DigestIdentity fromWire(Wire wire) throws WireValidationException {
    return fromWire(wire.digest(), wire.source());
  }

  static DigestIdentity fromWire(String prefix, byte @Nullable [] digest, int source)
      throws WireValidationException {
    if (digest == null || digest.length != DIGEST_BYTES) {
      int length = digest == null ? 0 : digest.length;
      throw WireValidationException.malformed(prefix + "digest", "digest must be 16 bytes, got " + length);
    }
    return new DigestIdentity(digest, IdentitySource.fromWire(prefix + "source", source));
  }

  /**
   * Parses the 32-lowercase-hex text form with the given source.
   *
   * @throws WireValidationException (malformed) unless {@code text} is exactly 32 lowercase hex digits
   */
  public static DigestIdentity parseHex(@Nullable String text, IdentitySource source) throws WireValidationException {
    Objects.requireNonNull(source, "source");
    if (text == null || text.length() != 2 * DIGEST_BYTES || !isLowerHex(text)) {
      throw WireValidationException.malformed(
          "digest", "identity must use lowercase hexadecimal with the exact encoded width");
    }
    return new DigestIdentity(HEX.parseHex(text), source);
  }

  static boolean isLowerHex(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /** A copy of the 16 digest bytes. */
  @Override
  public byte[] digest() {
    return digest.clone();
  }

  /** The wire shape of this value. */
  public Wire toWire() {
    return new Wire(digest.clone(), source.wireValue());
  }

  /** 32 lowercase hex digits. */
  public String hex() {
    return HEX.formatHex(digest);
  }

  @Override
  public int compareTo(DigestIdentity other) {
    int c = Arrays.compareUnsigned(digest, other.digest);
    return c != 0 ? c : source.compareTo(other.source);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof DigestIdentity d && source == d.source && Arrays.equals(digest, d.digest);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(digest) + source.hashCode();
  }

  /** The text form: 32 lowercase hex digits. */
  @Override
  public String toString() {
    return hex();
  }
}
