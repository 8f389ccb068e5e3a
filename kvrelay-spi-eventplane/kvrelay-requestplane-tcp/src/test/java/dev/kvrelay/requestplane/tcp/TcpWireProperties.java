package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Round trips of the frame codecs for random contents, and malformed input (random bytes, every truncation and
 * bit flips of valid frames) that either decodes or fails with the typed {@link TcpWireException} or a clean
 * {@link EOFException} — never anything unchecked.
 */
class TcpWireProperties {
  static final int MAX = 1 << 20;

  static byte[] bytes(SplittableRandom r, int max) {
    byte[] b = new byte[r.nextInt(max + 1)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  static String text(SplittableRandom r) {
    StringBuilder sb = new StringBuilder();
    int n = r.nextInt(20);
    for (int i = 0; i < n; i++) {
      sb.append(r.nextInt(8) == 0 ? (char) (0x80 + r.nextInt(0x700)) : (char) (0x20 + r.nextInt(0x5f)));
    }
    return sb.toString();
  }

  static RequestFrame frame(SplittableRandom r) {
    Map<String, String> headers = new LinkedHashMap<>();
    int n = r.nextInt(4);
    for (int i = 0; i < n; i++) {
      headers.put("h" + i + text(r), text(r));
    }
    return new RequestFrame(text(r), headers, new TwoPart(bytes(r, 64), bytes(r, 64)).encode());
  }

  @Test
  void framesRoundTrip() {
    qt().withExamples(1_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      try {
        TwoPart t = new TwoPart(bytes(r, 100), bytes(r, 100));
        assertThat(TwoPart.decode(t.encode(), MAX)).isEqualTo(t);
        assertThat(TwoPart.read(new ByteArrayInputStream(t.encode()), MAX)).isEqualTo(t);
        RequestFrame f = frame(r);
        assertThat(RequestFrame.read(new ByteArrayInputStream(f.encode(MAX)), MAX)).isEqualTo(f);
        String ack = text(r);
        assertThat(AckFrame.read(new ByteArrayInputStream(AckFrame.encode(ack)), MAX)).isEqualTo(ack);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
  }

  static void readAllWays(byte[] b) {
    String hex = HexFormat.of().formatHex(b);
    for (int way = 0; way < 8; way++) {
      try {
        switch (way) {
          case 0 -> TwoPart.read(new ByteArrayInputStream(b), MAX);
          case 1 -> TwoPart.decode(b, MAX);
          case 2 -> RequestFrame.read(new ByteArrayInputStream(b), MAX);
          case 3 -> AckFrame.read(new ByteArrayInputStream(b), MAX);
          case 4 -> ControlJson.parseControlMessage(b);
          case 5 -> ControlJson.parsePrologue(b);
          case 6 -> ControlJson.parseItem(b, MAX);
          default -> {
            ControlJson.parseHandshake(b);
            ControlJson.parseConnectionInfo(new String(b, StandardCharsets.UTF_8));
            ControlJson.parseControl(b);
          }
        }
      } catch (TcpWireException expected) {
        assertThat(expected.reason()).isNotNull();
      } catch (EOFException cleanEnd) {
        assertThat(way).isIn(0, 2, 3);
      } catch (Throwable t) {
        throw new AssertionError("way " + way + " threw " + t + " on " + hex, t);
      }
    }
  }

  @Test
  void randomBytesDecodeOrFailTyped() {
    qt().withExamples(1_000).forAll(longs().all()).checkAssert(seed -> readAllWays(bytes(new SplittableRandom(seed), 120)));
  }

  @Test
  void truncationsAndBitFlipsOfValidFramesFailTyped() {
    qt().withExamples(50).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      byte[] valid;
      try {
        valid = r.nextBoolean() ? frame(r).encode(MAX)
            : TwoPart.headerOnly(ControlJson.prologue(r.nextBoolean() ? null : text(r))).encode();
      } catch (TcpWireException e) {
        throw new AssertionError(e);
      }
      for (int cut = 0; cut < valid.length; cut++) {
        readAllWays(Arrays.copyOf(valid, cut));
      }
      for (int i = 0; i < 8; i++) {
        byte[] flipped = valid.clone();
        int at = r.nextInt(flipped.length);
        flipped[at] ^= (byte) (1 << r.nextInt(8));
        readAllWays(flipped);
      }
    });
  }
}
