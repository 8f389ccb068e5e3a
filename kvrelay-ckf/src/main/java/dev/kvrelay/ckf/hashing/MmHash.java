package dev.kvrelay.ckf.hashing;

import java.nio.charset.StandardCharsets;

/**
 * Stateless and thread-safe: multimodal object hashes ({@code mm_hash}), derivation from an identifier
 * and the SGLang pad token.
 */
public final class MmHash {
  /** Length of a hex digest identifier whose prefix is the {@code mm_hash}. */
  public static final int HEX_DIGEST_LENGTH = 64;

  /** Base of SGLang's multimodal pad token values. */
  public static final int SGLANG_PAD_BASE = 1_000_000;

  private static final long SGLANG_PAD_MASK = (1L << 30) - 1;
  private static final Xxh3 IDENTIFIER = Xxh3.withSeed(0L);

  private MmHash() {}

  /**
   * The {@code mm_hash} of a multimodal object identifier: for a string of exactly 64 ASCII hex digits
   * (either case) its first 16 hex digits as an unsigned 64-bit value; for any other non-empty string
   * {@code XXH3_64(utf8(identifier), seed 0)}.
   *
   * @throws HashingInputException {@code MM_IDENTIFIER_EMPTY} for the empty string
   */
  public static long fromIdentifier(String identifier) throws HashingInputException {
    if (identifier.isEmpty()) {
      throw new HashingInputException(
          HashingInputException.Reason.MM_IDENTIFIER_EMPTY, "multimodal identifier is empty");
    }
    if (isHexDigest(identifier)) {
      return Long.parseUnsignedLong(identifier.substring(0, 16), 16);
    }
    return IDENTIFIER.hash(identifier.getBytes(StandardCharsets.UTF_8));
  }

  /** SGLang's pad token for a multimodal object: {@code 1_000_000 + (mmHash & (2^30 − 1))}. */
  public static int sglangPadValue(long mmHash) {
    return SGLANG_PAD_BASE + (int) (mmHash & SGLANG_PAD_MASK);
  }

  private static boolean isHexDigest(String s) {
    if (s.length() != HEX_DIGEST_LENGTH) {
      return false;
    }
    for (int i = 0; i < HEX_DIGEST_LENGTH; i++) {
      char c = s.charAt(i);
      boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!hex) {
        return false;
      }
    }
    return true;
  }
}
