package dev.kvrelay.requestplane.tcp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/** Stateless and thread-safe: exact-length reads shared by the frame codecs. */
final class WireIo {
  private static final int CHUNK = 64 * 1024;

  private WireIo() {}

  /**
   * Reads exactly {@code n} bytes.
   *
   * @throws TcpWireException TRUNCATED if the stream ends first (also before the first byte unless
   *     {@code cleanEofAllowed})
   * @throws EOFException if the stream ends before the first byte and {@code cleanEofAllowed} (a clean end
   *     between frames)
   */
  static byte[] readExactly(InputStream in, int n, boolean cleanEofAllowed, String what)
      throws IOException, TcpWireException {
    // Grows with the bytes that actually arrive: a length prefix alone never allocates up to the size limit.
    byte[] b = new byte[Math.min(n, CHUNK)];
    int off = 0;
    while (off < n) {
      if (off == b.length) {
        b = Arrays.copyOf(b, (int) Math.min(n, 2L * b.length));
      }
      int r = in.read(b, off, b.length - off);
      if (r < 0) {
        if (off == 0 && cleanEofAllowed) {
          throw new EOFException("end of stream before " + what);
        }
        throw new TcpWireException(TcpWireException.Reason.TRUNCATED,
            "stream ended inside " + what + " after " + off + " of " + n + " bytes");
      }
      off += r;
    }
    return b;
  }

  static long u64(byte[] b, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[at + i] & 0xFF);
    }
    return v;
  }

  static void putU64(byte[] b, int at, long v) {
    for (int i = 7; i >= 0; i--) {
      b[at + i] = (byte) v;
      v >>>= 8;
    }
  }

  static long u32(byte[] b, int at) {
    return ((b[at] & 0xFFL) << 24) | ((b[at + 1] & 0xFFL) << 16) | ((b[at + 2] & 0xFFL) << 8) | (b[at + 3] & 0xFFL);
  }

  static void putU32(byte[] b, int at, long v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  static int u16(byte[] b, int at) {
    return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
  }

  static void putU16(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 8);
    b[at + 1] = (byte) v;
  }
}
