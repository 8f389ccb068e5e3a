package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.eventplane.EventDecodeException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ZMQ 4-frame validation of runtime-inputs.md §5.4, on frames built by hand. */
class ZmqFramesTest {
  static final long PUB = GoldenMsgpackTest.PUBLISHER;
  static final byte[] ENVELOPE = Hex.bytes(GoldenMsgpackTest.STORED_ENVELOPE); // publisher PUB, sequence 7

  static List<byte[]> frames(String frame0, String idHex, String seqHex, String headerHex, byte[] envelope) {
    byte[] header = Hex.bytes(headerHex);
    byte[] f3 = new byte[header.length + envelope.length];
    System.arraycopy(header, 0, f3, 0, header.length);
    System.arraycopy(envelope, 0, f3, header.length, envelope.length);
    return new ArrayList<>(List.of(frame0.getBytes(StandardCharsets.UTF_8), Hex.bytes(idHex), Hex.bytes(seqHex), f3));
  }

  static List<byte[]> good() {
    return frames("kv-events", "000ffffffffffe11", "0000000000000007", "01 0000011f", ENVELOPE);
  }

  static ZmqFrameCheck check(List<byte[]> frames) {
    return ZmqFrames.check(frames, "kv-events", "kv-events", id -> id == PUB);
  }

  static void assertRejected(ZmqFrameCheck c, Reason reason, boolean withPublisher) {
    assertThat(c).isInstanceOfSatisfying(ZmqFrameCheck.Rejected.class, r -> {
      assertThat(r.error().reason()).isEqualTo(reason);
      if (withPublisher) {
        assertThat(r.error().publisherId()).hasValue(PUB);
      } else {
        assertThat(r.error().publisherId()).isEmpty();
      }
    });
  }

  @Test
  void handBuiltFramesAreAccepted() {
    assertThat(check(good())).isInstanceOfSatisfying(ZmqFrameCheck.Accepted.class, a -> {
      assertThat(a.message().envelope()).isEqualTo(new EventEnvelope(PUB, 7, 1_700_000_000_000L, "kv-events"));
      assertThat(((EventMessage.KvEvent) a.message()).event()).isEqualTo(GoldenMsgpackTest.storedEvent());
    });
  }

  @Test
  void encodeBuildsTheSameFrames() {
    List<byte[]> built = ZmqFrames.encode("kv-events", new EventEnvelope(PUB, 7, 1_700_000_000_000L, "kv-events"), ENVELOPE);
    List<byte[]> hand = good();
    for (int i = 0; i < 4; i++) {
      assertThat(Hex.of(built.get(i))).isEqualTo(Hex.of(hand.get(i)));
    }
  }

  @Test
  void brokerModeMatchesFrameZeroAgainstTheFullSubject() {
    String subject = "namespace.dynamo.component.backend.endpoint.generate.kv-events";
    List<byte[]> f = frames(subject, "000ffffffffffe11", "0000000000000007", "01 0000011f", ENVELOPE);
    assertThat(ZmqFrames.check(f, subject, "kv-events", id -> true)).isInstanceOf(ZmqFrameCheck.Accepted.class);
    assertRejected(ZmqFrames.check(f, "kv-events", "kv-events", id -> true), Reason.IDENTITY_MISMATCH, false);
  }

  @Test
  void eachInconsistencyIsRejectedWithItsReason() {
    List<byte[]> three = good();
    three.remove(3);
    assertRejected(check(three), Reason.BAD_FRAMING, false);
    List<byte[]> five = good();
    five.add(new byte[0]);
    assertRejected(check(five), Reason.BAD_FRAMING, false);
    assertRejected(check(frames("kv_metrics", "000ffffffffffe11", "0000000000000007", "01 0000011f", ENVELOPE)),
        Reason.IDENTITY_MISMATCH, false);
    assertRejected(check(frames("kv-events", "0ffffffffffe11", "0000000000000007", "01 0000011f", ENVELOPE)),
        Reason.BAD_FRAMING, false);
    assertRejected(check(frames("kv-events", "000ffffffffffe11", "00000007", "01 0000011f", ENVELOPE)),
        Reason.BAD_FRAMING, true);
    assertRejected(check(frames("kv-events", "000ffffffffffe11", "0000000000000007", "02 0000011f", ENVELOPE)),
        Reason.UNSUPPORTED_FRAME_VERSION, true);
    assertRejected(check(frames("kv-events", "000ffffffffffe11", "0000000000000007", "01 00000120", ENVELOPE)),
        Reason.BAD_FRAMING, true);
    assertRejected(check(frames("kv-events", "000ffffffffffe11", "0000000000000007", "01 00", new byte[0])),
        Reason.BAD_FRAMING, true);
    // the envelope's sequence (7) must equal frame 2
    assertRejected(check(frames("kv-events", "000ffffffffffe11", "0000000000000008", "01 0000011f", ENVELOPE)),
        Reason.IDENTITY_MISMATCH, true);
    // a frame-1 id that is not an expected publisher
    assertThat(ZmqFrames.check(good(), "kv-events", "kv-events", id -> false))
        .isInstanceOfSatisfying(ZmqFrameCheck.Rejected.class, r -> {
          assertThat(r.error().reason()).isEqualTo(Reason.IDENTITY_MISMATCH);
          assertThat(r.error().field()).isEqualTo("frame1");
        });
    // envelope publisher differs from frame 1 (which is itself expected)
    assertThat(ZmqFrames.check(frames("kv-events", "0000000000000001", "0000000000000007", "01 0000011f", ENVELOPE),
            "kv-events", "kv-events", id -> true))
        .isInstanceOfSatisfying(ZmqFrameCheck.Rejected.class, r -> {
          assertThat(r.error().reason()).isEqualTo(Reason.IDENTITY_MISMATCH);
          assertThat(r.error().field()).isEqualTo("publisher_id");
          assertThat(r.error().publisherId()).hasValue(1);
        });
    // an undecodable envelope is a decode error attributed to the frame-1 publisher
    byte[] garbage = Hex.bytes("81 c1 00");
    assertRejected(check(frames("kv-events", "000ffffffffffe11", "0000000000000007", "01 00000003", garbage)),
        Reason.WRONG_TYPE, true);
  }

  @Test
  void envelopeTopicMustBeTheSubscribedTopic() {
    // frame 0 is the subject (broker mode) but the envelope topic is checked against the plain topic
    assertRejected(ZmqFrames.check(good(), "kv-events", "kv_metrics", id -> true), Reason.IDENTITY_MISMATCH, true);
  }
}
