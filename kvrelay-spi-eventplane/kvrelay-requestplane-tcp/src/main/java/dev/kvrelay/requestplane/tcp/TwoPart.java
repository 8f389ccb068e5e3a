package dev.kvrelay.requestplane.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Immutable and thread-safe (the arrays are copied in and out): one TwoPart message and its codec
 * (plugins-wire §1.3): {@code header_len u64 BE · body_len u64 BE · checksum u64 BE · header · body}.
 * Encoding writes checksum 0 (what release builds send and every receiver accepts); decoding ignores the
 * checksum, as release builds do.
 *
 * @param header the header bytes (JSON for every message of this plane), possibly empty
 * @param body the body bytes, possibly empty
 */
@SuppressWarnings("ArrayRecordComponent") // the arrays are copied in and out; equals/hashCode/toString use contents
public record TwoPart(byte[] header, byte[] body) {

  /** The fixed prefix: three u64 fields. */
  public static final int PREFIX_BYTES = 24;

  /** Immutable and thread-safe: the message kind, from which parts are empty. */
  public enum Kind {
    /** Header only (control JSON: handshake, prologue, stop / kill / sentinel). */
    HEADER_ONLY,
    /** Data only (a response item). */
    DATA_ONLY,
    /** Both (a request envelope). */
    HEADER_AND_DATA,
    /** Neither. */
    EMPTY
  }

  /** Copies the arrays. */
  public TwoPart {
    header = Objects.requireNonNull(header, "header").clone();
    body = Objects.requireNonNull(body, "body").clone();
  }

  /** A header-only message. */
  public static TwoPart headerOnly(byte[] header) {
    return new TwoPart(header, new byte[0]);
  }

  /** A data-only message. */
  public static TwoPart dataOnly(byte[] body) {
    return new TwoPart(new byte[0], body);
  }

  @Override
  public byte[] header() {
    return header.clone();
  }

  @Override
  public byte[] body() {
    return body.clone();
  }

  /** The kind. */
  public Kind kind() {
    if (header.length > 0) {
      return body.length > 0 ? Kind.HEADER_AND_DATA : Kind.HEADER_ONLY;
    }
    return body.length > 0 ? Kind.DATA_ONLY : Kind.EMPTY;
  }

  /** The encoded size. */
  public long encodedSize() {
    return PREFIX_BYTES + (long) header.length + body.length;
  }

  /** The encoded bytes (checksum 0). */
  public byte[] encode() {
    byte[] out = new byte[Math.toIntExact(encodedSize())];
    WireIo.putU64(out, 0, header.length);
    WireIo.putU64(out, 8, body.length);
    WireIo.putU64(out, 16, 0);
    System.arraycopy(header, 0, out, PREFIX_BYTES, header.length);
    System.arraycopy(body, 0, out, PREFIX_BYTES + header.length, body.length);
    return out;
  }

  /** Decodes one whole message from {@code bytes} (nothing may follow). */
  public static TwoPart decode(byte[] bytes, long maxMessageBytes) throws TcpWireException {
    if (bytes.length < PREFIX_BYTES) {
      throw new TcpWireException(TcpWireException.Reason.TRUNCATED,
          "TwoPart message of " + bytes.length + " bytes is shorter than its 24-byte prefix");
    }
    long[] lens = lengths(bytes, maxMessageBytes);
    long total = PREFIX_BYTES + lens[0] + lens[1];
    if (total != bytes.length) {
      throw new TcpWireException(total > bytes.length ? TcpWireException.Reason.TRUNCATED
          : TcpWireException.Reason.MALFORMED,
          "TwoPart lengths say " + total + " bytes, the payload has " + bytes.length);
    }
    int h = (int) lens[0];
    return new TwoPart(Arrays.copyOfRange(bytes, PREFIX_BYTES, PREFIX_BYTES + h),
        Arrays.copyOfRange(bytes, PREFIX_BYTES + h, bytes.length));
  }

  /**
   * Reads one message from a stream.
   *
   * @throws java.io.EOFException if the stream ends cleanly before the message starts
   * @throws TcpWireException OVERSIZE when {@code header_len + body_len} exceeds {@code maxMessageBytes}
   *     (nothing more is read), TRUNCATED when the stream ends inside the message
   */
  public static TwoPart read(InputStream in, long maxMessageBytes) throws IOException, TcpWireException {
    byte[] prefix = WireIo.readExactly(in, PREFIX_BYTES, true, "a TwoPart prefix");
    long[] lens = lengths(prefix, maxMessageBytes);
    byte[] header = WireIo.readExactly(in, (int) lens[0], false, "a TwoPart header");
    byte[] body = WireIo.readExactly(in, (int) lens[1], false, "a TwoPart body");
    return new TwoPart(header, body);
  }

  private static long[] lengths(byte[] prefix, long max) throws TcpWireException {
    long h = WireIo.u64(prefix, 0);
    long b = WireIo.u64(prefix, 8);
    if (Long.compareUnsigned(h, max) > 0 || Long.compareUnsigned(b, max) > 0
        || Long.compareUnsigned(h + b, max) > 0) {
      throw new TcpWireException(TcpWireException.Reason.OVERSIZE,
          "TwoPart message of header " + Long.toUnsignedString(h) + " + body " + Long.toUnsignedString(b)
              + " bytes exceeds the limit of " + max + " bytes");
    }
    return new long[] {h, b};
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TwoPart t && Arrays.equals(header, t.header) && Arrays.equals(body, t.body);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(header) + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "TwoPart[" + kind() + ", header=" + header.length + " B, body=" + body.length + " B, "
        + HexFormat.of().formatHex(header, 0, Math.min(header.length, 32)) + "]";
  }
}
