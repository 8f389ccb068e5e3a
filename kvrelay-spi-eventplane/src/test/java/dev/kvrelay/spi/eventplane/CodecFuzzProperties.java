package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Malformed input never escapes as an unchecked exception: random bytes, every truncation of a valid
 * message, bit flips, byte insertions and forged lengths either decode or raise the typed
 * {@link EventDecodeException}; ZMQ frame validation never throws at all.
 */
class CodecFuzzProperties {

  /** Runs every decoder on {@code bytes}; fails on anything but success or EventDecodeException. */
  static void decodeAllWays(byte[] bytes) {
    String hex = Hex.of(bytes);
    for (int way = 0; way < 5; way++) {
      try {
        switch (way) {
          case 0 -> EventPlaneCodec.decodeMessage(bytes, EventTopics.KV_EVENTS);
          case 1 -> EventPlaneCodec.decodeMessage(bytes, EventTopics.KV_METRICS);
          case 2 -> EventPlaneCodec.decodeRouterEvent(bytes);
          case 3 -> EventPlaneCodec.decodeActiveLoad(bytes);
          default -> {
            ZmqFrameCheck c = ZmqFrames.check(List.of(new byte[] {'k'}, Arrays.copyOf(bytes, 8),
                new byte[8], bytes), "k", EventTopics.KV_EVENTS, id -> true);
            assertThat(c).isNotNull();
          }
        }
      } catch (EventDecodeException expected) {
        assertThat(expected.reason()).isNotNull();
      } catch (Throwable t) {
        throw new AssertionError("decoder way " + way + " threw " + t + " on " + hex, t);
      }
    }
  }

  static byte[] validMessage(SplittableRandom r) {
    boolean load = r.nextInt(4) == 0;
    EventEnvelope env = EventGens.envelope(r, load ? EventTopics.KV_METRICS : EventTopics.KV_EVENTS);
    return load
        ? EventPlaneCodec.encodeMessage(new EventMessage.Load(env, EventGens.activeLoad(r)))
        : EventPlaneCodec.encodeMessage(new EventMessage.KvEvent(env, EventGens.routerEvent(r)));
  }

  @Test
  void randomBytesDecodeOrFailTyped() {
    qt().withExamples(5_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      byte[] b = new byte[r.nextInt(200)];
      for (int i = 0; i < b.length; i++) {
        b[i] = (byte) r.nextInt(256);
      }
      if (b.length > 0 && r.nextBoolean()) {
        b[0] = (byte) (0x80 | r.nextInt(16)); // start like a map so decoding goes deeper
      }
      decodeAllWays(b);
    });
  }

  @Test
  void everyTruncationOfAValidMessageFailsTyped() {
    qt().withExamples(300).forAll(longs().all()).checkAssert(seed -> {
      byte[] whole = validMessage(new SplittableRandom(seed));
      for (int len = 0; len < whole.length; len++) {
        byte[] prefix = Arrays.copyOf(whole, len);
        assertThatThrownBy(() -> EventPlaneCodec.decodeMessage(prefix, EventTopics.KV_EVENTS))
            .isInstanceOf(EventDecodeException.class)
            .extracting(e -> ((EventDecodeException) e).reason())
            .isIn(EventDecodeException.Reason.TRUNCATED, EventDecodeException.Reason.OVERSIZE_LENGTH);
        decodeAllWays(prefix);
      }
    });
  }

  @Test
  void bitFlipsAndInsertionsDecodeOrFailTyped() {
    qt().withExamples(5_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      byte[] b = validMessage(r);
      int flips = 1 + r.nextInt(8);
      for (int i = 0; i < flips; i++) {
        int at = r.nextInt(b.length);
        b[at] ^= (byte) (1 << r.nextInt(8));
      }
      if (r.nextInt(3) == 0) {
        int at = r.nextInt(b.length + 1);
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, at);
        c[at] = (byte) r.nextInt(256);
        System.arraycopy(b, at, c, at + 1, b.length - at);
        b = c;
      }
      decodeAllWays(b);
    });
  }

  @Test
  void trailingBytesAreRejected() {
    qt().withExamples(500).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      RouterEvent e = EventGens.routerEvent(r);
      byte[] b = EventPlaneCodec.encodeRouterEvent(e);
      byte[] longer = Arrays.copyOf(b, b.length + 1 + r.nextInt(4));
      assertThatThrownBy(() -> EventPlaneCodec.decodeRouterEvent(longer))
          .isInstanceOf(EventDecodeException.class)
          .extracting(x -> ((EventDecodeException) x).reason())
          .isEqualTo(EventDecodeException.Reason.TRAILING_BYTES);
    });
  }

  @Test
  void randomZmqFramesNeverThrow() {
    qt().withExamples(3_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      List<byte[]> frames = new ArrayList<>();
      int n = r.nextInt(6);
      for (int i = 0; i < n; i++) {
        byte[] f = new byte[r.nextInt(4) == 0 ? 8 : r.nextInt(40)];
        for (int j = 0; j < f.length; j++) {
          f[j] = (byte) r.nextInt(256);
        }
        frames.add(f);
      }
      if (n == 4 && r.nextBoolean()) {
        byte[] msg = validMessage(r);
        byte[] f3 = new byte[5 + msg.length];
        f3[0] = 1;
        f3[1] = (byte) (msg.length >>> 24);
        f3[2] = (byte) (msg.length >>> 16);
        f3[3] = (byte) (msg.length >>> 8);
        f3[4] = (byte) msg.length;
        System.arraycopy(msg, 0, f3, 5, msg.length);
        f3[r.nextInt(f3.length)] ^= (byte) (1 << r.nextInt(8));
        frames.set(3, f3);
        frames.set(0, "kv-events".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      assertThat(ZmqFrames.check(frames, "kv-events", EventTopics.KV_EVENTS, id -> r.nextBoolean())).isNotNull();
    });
  }
}
