package dev.kvrelay.eventplane.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Stateless and thread-safe: drives {@code nats_raw_publisher.py} (Debian python3 + python3-msgpack, a NATS
 * client written from the protocol over a plain socket) and states, in Java, the values its formulas
 * produce, so that tests compare what the plane decoded with what an independent encoder sent.
 */
final class RawPublisher {
  static final Path PYTHON = Path.of("/usr/bin/python3");
  static final long PUBLISHED_AT_BASE = 1_700_000_000_000L;
  private static final long M = -1L; // 2^64 - 1

  private RawPublisher() {}

  static void requirePython() throws Exception {
    boolean ok = Files.isExecutable(PYTHON)
        && new ProcessBuilder(PYTHON.toString(), "-c", "import msgpack").start().waitFor() == 0;
    if (!ok) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but /usr/bin/python3 cannot import msgpack (apt-get install python3-msgpack)");
      }
      assumeTrue(false, "python3-msgpack not installed; test skipped");
    }
  }

  private static String script() throws IOException {
    try (InputStream in = RawPublisher.class.getResourceAsStream("/nats_raw_publisher.py")) {
      return new String(Objects.requireNonNull(in, "nats_raw_publisher.py").readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<String> run(List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(PYTHON.toString(), "-c", script()));
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        out.add(line);
      }
    }
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("python publisher finished").isTrue();
    assertThat(p.exitValue()).as("python publisher exit status; output %s",
        out.size() > 5 ? out.subList(0, 5) : out).isZero();
    return out;
  }

  /** Publishes sequences {@code [start, start + count)} over the raw protocol; {@code auth} e.g. {@code user:u:p}. */
  static void publish(NatsServer server, String subject, String topic, long publisherId, long worker, int start,
      int count, String auth) throws Exception {
    List<String> out = run(List.of("publish", "127.0.0.1", Integer.toString(server.port()), subject, topic,
        Long.toUnsignedString(publisherId), Long.toUnsignedString(worker), Integer.toString(start),
        Integer.toString(count), auth));
    assertThat(out).containsExactly("PUBLISHED " + count);
  }

  /** The envelope bytes python3-msgpack packs for sequences {@code [start, start + count)}. */
  static List<byte[]> dump(String topic, long publisherId, long worker, int start, int count) throws Exception {
    List<String> out = run(List.of("dump", topic, Long.toUnsignedString(publisherId), Long.toUnsignedString(worker),
        Integer.toString(start), Integer.toString(count)));
    assertThat(out).hasSize(count);
    HexFormat hex = HexFormat.of();
    return out.stream().map(hex::parseHex).toList();
  }

  /** The envelope the script sends for {@code seq}. */
  static EventEnvelope envelope(String topic, long publisherId, long seq) {
    return new EventEnvelope(publisherId, seq, PUBLISHED_AT_BASE + seq, topic);
  }

  /** The script's {@code router_event(i, worker)}. */
  static RouterEvent routerEvent(long i, long worker) {
    KvEventData data = switch ((int) (i % 3)) {
      case 0 -> new KvEventData.Stored(
          i % 2 != 0 ? OptionalLong.empty() : OptionalLong.of(i * 31),
          i % 4 != 0 ? OptionalLong.empty() : OptionalLong.of(i / 4),
          List.of(StoredBlock.of(i * 7 + 1, i * 0x9E3779B97F4A7C15L)));
      case 1 -> KvEventData.Removed.of(i, M - i);
      default -> KvEventData.Cleared.INSTANCE;
    };
    return new RouterEvent(worker, StorageTier.DEVICE, ResidencyDomain.WORKER, i, (int) (i % 4), data);
  }

  /** The script's {@code active_load(i, worker)}. */
  static ActiveLoad activeLoad(long i, long worker) {
    return new ActiveLoad(worker, (int) (i % 2), i % 2 == 0 ? OptionalLong.of(i * 3) : OptionalLong.empty(),
        OptionalLong.empty(), null, OptionalLong.of(i * 5));
  }
}
