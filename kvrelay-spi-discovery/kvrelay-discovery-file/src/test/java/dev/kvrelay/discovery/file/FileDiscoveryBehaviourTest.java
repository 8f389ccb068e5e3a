package dev.kvrelay.discovery.file;

import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.RecordingListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Expiry against an injected clock, event overflow, rescans without events, and option validation. */
class FileDiscoveryBehaviourTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path root;

  /** Thread-safe: a wall clock the test sets. */
  static final class ManualClock extends Clock {
    final AtomicLong millis;

    ManualClock(long millis) {
      this.millis = new AtomicLong(millis);
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.get());
    }
  }

  /** Writes a record's file directly, with a given mtime (no writer process involved). */
  private Path write(DiscoveryRecord r, long mtimeMillis) throws Exception {
    Path dir = root.resolve(r.key().kind().bucket());
    Files.createDirectories(dir);
    Path temp = dir.resolve(".tmp_" + Long.toHexString(System.nanoTime()));
    Files.write(temp, DiscoveryCodec.encodeToString(r).getBytes(StandardCharsets.UTF_8));
    Files.setLastModifiedTime(temp, FileTime.fromMillis(mtimeMillis));
    Path target = dir.resolve(KeyFileNames.encode(r.key().path()));
    Files.move(temp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return target;
  }

  @Test
  void aFileIsGoneOnceItsMtimeIsOlderThanTheTtlAndBackWhenRefreshed() throws Exception {
    long t0 = 1_800_000_000_000L;
    ManualClock clock = new ManualClock(t0);
    EndpointRecord a = endpoint("team-a", "backend", "generate", 1, "h:1/generate");
    EndpointRecord b = endpoint("team-a", "backend", "generate", 2, "h:2/generate");
    Path fileA = write(a, t0);
    write(b, t0 - 10_001); // already older than now - TTL
    try (FileDiscovery d = FileDiscovery.builder(root).clock(clock).open()) {
      RecordingListener l = new RecordingListener();
      d.watch(DiscoveryScope.watchAll(), l);
      l.await(WAIT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());
      assertThat(l.payloads("snapshot").get(0)).isEqualTo(List.of(a));

      clock.millis.set(t0 + 10_000); // exactly now - TTL: still alive (expired means strictly older)
      d.rescanNow();
      assertThat(l.view()).containsKey(a.key());
      clock.millis.set(t0 + 10_001);
      d.rescanNow();
      l.await(WAIT, "a to expire", x -> x.view().isEmpty());
      assertThat(l.payloads("removed")).containsExactly(a.key());
      assertThat(d.stats().expired()).isEqualTo(1);
      assertThat(fileA).exists(); // readers never delete

      Files.setLastModifiedTime(fileA, FileTime.fromMillis(t0 + 10_001)); // a keep-alive touch
      d.rescanNow();
      l.await(WAIT, "a back", x -> x.view().containsKey(a.key()));
      assertThat(d.stats().badFiles()).isZero();
      l.assertContractKept();
    }
  }

  @Test
  void changesLostToAnEventOverflowAreFoundByTheRescan() throws Exception {
    try (FileDiscovery d = FileDiscovery.builder(root).open()) {
      RecordingListener l = new RecordingListener();
      d.watch(DiscoveryScope.watchAll(), l);
      l.await(WAIT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());
      EndpointRecord doomed = endpoint("team-a", "backend", "generate", 99_999, "h:9/generate");
      Path doomedFile = write(doomed, System.currentTimeMillis());
      l.await(WAIT, "the first file", x -> x.view().containsKey(doomed.key()));

      // With the scanner blocked, far more events pile up on one directory than a WatchKey holds (512 in the JDK),
      // so the JDK replaces them with OVERFLOW; the rescan must find every change anyway.
      List<EndpointRecord> many = new ArrayList<>();
      AutoCloseable paused = d.pauseScanner();
      try {
        for (int i = 0; i < 700; i++) {
          EndpointRecord r = endpoint("team-a", "backend", "generate", i + 1, "h:" + i + "/generate");
          many.add(r);
          write(r, System.currentTimeMillis());
        }
        Files.delete(doomedFile);
      } finally {
        paused.close();
      }
      l.awaitView(WAIT, byKey(many));
      assertThat(d.stats().overflows()).isGreaterThanOrEqualTo(1);
      assertThat(l.payloads("removed")).containsExactly(doomed.key());
      l.assertContractKept();
    }
  }

  private static Map<DiscoveryKey, DiscoveryRecord> byKey(List<? extends DiscoveryRecord> records) {
    java.util.HashMap<DiscoveryKey, DiscoveryRecord> m = new java.util.HashMap<>();
    for (DiscoveryRecord r : records) {
      m.put(r.key(), r);
    }
    return m;
  }

  @Test
  void withoutFileEventsTheRescanEveryThirdOfTheTtlStillSeesEveryChange() throws Exception {
    try (FileDiscovery d = FileDiscovery.builder(root).ttl(Duration.ofSeconds(3)).watchEvents(false).open()) {
      RecordingListener l = new RecordingListener();
      d.watch(DiscoveryScope.watchAll(), l);
      l.await(WAIT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());
      EndpointRecord a = endpoint("team-a", "backend", "generate", 1, "h:1/generate");
      Path file = write(a, System.currentTimeMillis());
      l.await(WAIT, "a", x -> x.view().containsKey(a.key()));
      EndpointRecord moved = endpoint("team-a", "backend", "generate", 1, "h:11/generate");
      write(moved, System.currentTimeMillis());
      l.await(WAIT, "a moved", x -> moved.equals(x.view().get(a.key())));
      Files.delete(file);
      l.await(WAIT, "a removed", x -> x.view().isEmpty());
      assertThat(d.stats().watchEvents()).isZero();
      assertThat(d.stats().rescans()).isGreaterThanOrEqualTo(3);
      l.assertContractKept();
    }
  }

  @Test
  void aWatchSeesOnlyItsScope() throws Exception {
    EndpointRecord inside = endpoint("team-a", "backend", "generate", 1, "h:1/generate");
    EndpointRecord outside = endpoint("team-b", "backend", "generate", 2, "h:2/generate");
    write(inside, System.currentTimeMillis());
    write(outside, System.currentTimeMillis());
    try (FileDiscovery d = FileDiscovery.builder(root).open()) {
      RecordingListener l = new RecordingListener();
      d.watch(DiscoveryScope.namespaces(List.of("team-a")), l);
      l.await(WAIT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());
      assertThat(l.payloads("snapshot").get(0)).isEqualTo(List.of(inside));
      assertThat(d.stats().liveRecords()).isEqualTo(2);
    }
  }

  @Test
  void optionsAreValidated() throws Exception {
    assertThatThrownBy(() -> FileDiscovery.builder(root).ttl(Duration.ofMillis(999)).open())
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));
    Path notADirectory = Files.writeString(root.resolve("plain-file"), "x");
    assertThatThrownBy(() -> FileDiscovery.builder(notADirectory).open())
        .isInstanceOfSatisfying(DiscoveryException.class,
            e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));
    FileDiscovery d = FileDiscovery.builder(root.resolve("fresh")).open();
    for (String bucket : List.of("v1/instances", "v1/mdc", "v1/event_channels", "v1/event_sources")) {
      assertThat(root.resolve("fresh").resolve(bucket)).isDirectory();
    }
    d.close();
    assertThatThrownBy(d::register).isInstanceOfSatisfying(DiscoveryException.class,
        e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.CLOSED));
  }
}
