package dev.kvrelay.api;

import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a data center's 64-bit id (unsigned, in a {@code long}). Text form: 16
 * lowercase hex digits, zero-padded. Ordered as an unsigned number.
 *
 * <p>{@link #derive(String)} turns the Relay's {@code --dc-id} string into the id:
 * {@code LE64(BLAKE3("dynamo/indexer-dc/v1" ‖ u32_le(len) ‖ UTF8(name))[0..8])} ({@code ckf-cbi1.md}
 * §6.7); {@link #of(long)} wraps a value read from the wire (every u64 is valid).
 *
 * @param value the unsigned 64-bit id
 */
public record DcId(long value) implements Comparable<DcId> {

  /** Message for an empty {@code --dc-id} (upstream {@code KvDcRelay::start}). */
  public static final String EMPTY_MESSAGE = "KV DC Relay dc_id must not be empty";
  /** Message for a {@code --dc-id} with surrounding whitespace (upstream {@code KvDcRelay::start}). */
  public static final String WHITESPACE_MESSAGE =
      "KV DC Relay dc_id must not contain leading or trailing whitespace";

  private static final HexFormat HEX = HexFormat.of();

  /** Wraps a wire value. */
  public static DcId of(long value) {
    return new DcId(value);
  }

  /**
   * Derives the id of a DC name.
   *
   * @throws WireValidationException (malformed, field {@code dc_id}) if the name is empty
   *     ({@link #EMPTY_MESSAGE}), has leading or trailing whitespace ({@link #WHITESPACE_MESSAGE}), or
   *     is not well-formed UTF-16; {@link WireValidationException#detail()} is the exact message
   */
  public static DcId derive(@Nullable String name) throws WireValidationException {
    if (name == null || name.isEmpty()) {
      throw WireValidationException.malformed("dc_id", EMPTY_MESSAGE);
    }
    if (WireText.hasSurroundingWhitespace(name)) {
      throw WireValidationException.malformed("dc_id", WHITESPACE_MESSAGE);
    }
    if (!WireText.isWellFormed(name)) {
      throw WireValidationException.malformed("dc_id", "KV DC Relay dc_id must be valid UTF-8 text");
    }
    return new DcId(IdentityMaterial.dcId(name));
  }

  /**
   * Parses the 16-lowercase-hex text form.
   *
   * @throws WireValidationException (malformed) unless {@code text} is exactly 16 lowercase hex digits
   */
  public static DcId parseHex(@Nullable String text) throws WireValidationException {
    if (text == null || text.length() != 16 || !DigestIdentity.isLowerHex(text)) {
      throw WireValidationException.malformed(
          "dc_id", "identity must use lowercase hexadecimal with the exact encoded width");
    }
    return new DcId(Long.parseUnsignedLong(text, 16));
  }

  /** 16 lowercase hex digits, zero-padded. */
  public String hex() {
    return HEX.toHexDigits(value);
  }

  @Override
  public int compareTo(DcId other) {
    return Long.compareUnsigned(value, other.value);
  }

  /** The text form: 16 lowercase hex digits. */
  @Override
  public String toString() {
    return hex();
  }
}
