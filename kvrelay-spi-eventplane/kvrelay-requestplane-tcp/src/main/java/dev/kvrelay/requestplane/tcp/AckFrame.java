package dev.kvrelay.requestplane.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Stateless and thread-safe: the codec of the worker's ACK, {@code TcpResponseMessage} (plugins-wire §1.3):
 * {@code len u32 BE · data}; empty data means accepted. ACKs come back FIFO per connection.
 */
public final class AckFrame {
  /** The overload rejection prefix (plugins-wire §1.6); upstream's exact text is {@link #OVERLOADED_TEXT}. */
  public static final String OVERLOADED_PREFIX = "Server overloaded:";
  /** The unavailable rejection prefix ({@code ACK_UNAVAILABLE_PREFIX}, plugins-wire §1.6). */
  public static final String UNAVAILABLE_PREFIX = "Server unavailable:";
  /** Upstream's overload ACK. */
  public static final String OVERLOADED_TEXT = "Server overloaded: worker at capacity";

  private AckFrame() {}

  /** The encoded ACK carrying {@code text} (empty: accepted). */
  public static byte[] encode(String text) {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[4 + data.length];
    WireIo.putU32(out, 0, data.length);
    System.arraycopy(data, 0, out, 4, data.length);
    return out;
  }

  /**
   * Reads one ACK and returns its data as text (lossy UTF-8; empty: accepted).
   *
   * @throws java.io.EOFException if the stream ends cleanly before the ACK starts
   * @throws TcpWireException OVERSIZE above {@code maxMessageBytes}, TRUNCATED inside the ACK
   */
  public static String read(InputStream in, long maxMessageBytes) throws IOException, TcpWireException {
    byte[] len = WireIo.readExactly(in, 4, true, "an ACK");
    long n = WireIo.u32(len, 0);
    if (n > maxMessageBytes) {
      throw new TcpWireException(TcpWireException.Reason.OVERSIZE,
          "ACK of " + n + " bytes exceeds the limit of " + maxMessageBytes + " bytes");
    }
    return new String(WireIo.readExactly(in, (int) n, false, "the ACK data"), StandardCharsets.UTF_8);
  }
}
