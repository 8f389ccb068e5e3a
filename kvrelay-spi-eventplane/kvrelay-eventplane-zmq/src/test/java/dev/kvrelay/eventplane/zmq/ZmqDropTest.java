package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlaneCodec;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.ZmqFrameCheck;
import dev.kvrelay.spi.eventplane.ZmqFrames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Each rejection of the SPI's {@code ZmqFrames.check} maps to its own drop counter. */
class ZmqDropTest {
  static final long PUB = 12;

  static List<byte[]> good(String envTopic, long envPublisher, long envSequence) {
    EventEnvelope env = new EventEnvelope(envPublisher, envSequence, 1, envTopic);
    byte[] payload = EventPlaneCodec.encodeRouterEvent(
        new RouterEvent(1, StorageTier.DEVICE, ResidencyDomain.WORKER, 1, 0, KvEventData.Cleared.INSTANCE));
    List<byte[]> f = new ArrayList<>(ZmqFrames.encode("kv-events", env, EventPlaneCodec.encodeEnvelope(env, payload)));
    EventEnvelope framed = new EventEnvelope(PUB, 3, 1, "kv-events");
    List<byte[]> ids = ZmqFrames.encode("kv-events", framed, new byte[0]);
    f.set(1, ids.get(1));
    f.set(2, ids.get(2));
    return f;
  }

  static ZmqDrop kind(List<byte[]> frames) {
    ZmqFrameCheck c = ZmqFrames.check(frames, "kv-events", "kv-events", id -> id == PUB);
    assertThat(c).isInstanceOf(ZmqFrameCheck.Rejected.class);
    return ZmqDrop.of(((ZmqFrameCheck.Rejected) c).error());
  }

  static List<byte[]> with(List<byte[]> f, UnaryOperator<List<byte[]>> change) {
    return change.apply(new ArrayList<>(f));
  }

  @Test
  void everyRejectionHasItsKind() {
    List<byte[]> ok = good("kv-events", PUB, 3);
    assertThat(ZmqFrames.check(ok, "kv-events", "kv-events", id -> id == PUB)).isInstanceOf(ZmqFrameCheck.Accepted.class);
    assertThat(kind(ok.subList(0, 3))).isEqualTo(ZmqDrop.FRAME_COUNT);
    assertThat(kind(with(ok, f -> { f.add(new byte[1]); return f; }))).isEqualTo(ZmqDrop.FRAME_COUNT);
    assertThat(kind(with(ok, f -> { f.set(1, new byte[7]); return f; }))).isEqualTo(ZmqDrop.FRAME_SIZE);
    assertThat(kind(with(ok, f -> { f.set(2, new byte[9]); return f; }))).isEqualTo(ZmqDrop.FRAME_SIZE);
    assertThat(kind(with(ok, f -> { f.set(3, new byte[] {1, 0}); return f; }))).isEqualTo(ZmqDrop.PAYLOAD_LENGTH);
    assertThat(kind(with(ok, f -> {
      byte[] p = f.get(3).clone();
      p[4]++;
      f.set(3, p);
      return f;
    }))).isEqualTo(ZmqDrop.PAYLOAD_LENGTH);
    assertThat(kind(with(ok, f -> {
      byte[] p = f.get(3).clone();
      p[0] = 2;
      f.set(3, p);
      return f;
    }))).isEqualTo(ZmqDrop.FRAME_VERSION);
    assertThat(kind(with(ok, f -> { f.set(0, "kv-eventsX".getBytes(StandardCharsets.UTF_8)); return f; })))
        .isEqualTo(ZmqDrop.TOPIC_MISMATCH);
    assertThat(kind(good("kv_metrics", PUB, 3))).isEqualTo(ZmqDrop.TOPIC_MISMATCH);
    assertThat(kind(good("kv-events", PUB + 1, 3))).isEqualTo(ZmqDrop.PUBLISHER_MISMATCH);
    assertThat(kind(good("kv-events", PUB, 4))).isEqualTo(ZmqDrop.SEQUENCE_MISMATCH);
    assertThat(ZmqDrop.of(((ZmqFrameCheck.Rejected) ZmqFrames.check(ok, "kv-events", "kv-events", id -> false))
        .error())).isEqualTo(ZmqDrop.UNEXPECTED_PUBLISHER);
    assertThat(kind(with(ok, f -> {
      byte[] p = f.get(3).clone();
      p[5] = (byte) 0xc1;
      f.set(3, p);
      return f;
    }))).isEqualTo(ZmqDrop.UNDECODABLE);
  }

  @Test
  void statsListEveryKind() {
    ZmqCounters c = new ZmqCounters();
    c.drop(ZmqDrop.DUPLICATE);
    c.drop(ZmqDrop.DUPLICATE);
    c.drop(ZmqDrop.FRAME_VERSION);
    ZmqStats s = c.snapshot();
    assertThat(s.dropped()).hasSize(ZmqDrop.values().length);
    assertThat(s.dropped(ZmqDrop.DUPLICATE)).isEqualTo(2);
    assertThat(s.dropped(ZmqDrop.FRAME_COUNT)).isZero();
    assertThat(s.droppedTotal()).isEqualTo(3);
  }
}
