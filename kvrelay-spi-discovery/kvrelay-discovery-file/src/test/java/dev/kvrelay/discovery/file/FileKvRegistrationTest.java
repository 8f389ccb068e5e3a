package dev.kvrelay.discovery.file;

import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static dev.kvrelay.spi.discovery.TestRecords.eventChannel;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventChannelRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The relay's own records, written as a Dynamo process writes its keys. */
class FileKvRegistrationTest {
  @TempDir Path root;

  private static long names(Path dir, java.util.function.Predicate<String> p) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(f -> f.getFileName().toString()).filter(p).count();
    }
  }

  @Test
  void publishesUnderTheEncodedKeyRefreshesSweepsAndDeletesOnClose() throws Exception {
    FileDiscoveryBehaviourTest.ManualClock clock = new FileDiscoveryBehaviourTest.ManualClock(1_800_000_000_000L);
    FileKvRegistration r = new FileKvRegistration(root, Duration.ofSeconds(10), clock, x -> { });
    EndpointRecord own = endpoint("relay", "kv-relay", "generate", r.connectionId(), "127.0.0.1:1/generate");
    r.put(own);
    Path file = root.resolve("v1/instances").resolve("relay%2Fkv%2Drelay%2Fgenerate%2F" + Long.toHexString(r.connectionId()));
    assertThat(r.fileOf(own.key())).isEqualTo(file);
    assertThat(DiscoveryCodec.decode(Files.readAllBytes(file))).isEqualTo(own);
    assertThat(names(file.getParent(), KeyFileNames::isTemporary)).isZero();

    // an update replaces the file (a rename: a new inode), not the old one in place
    Object inode = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
    EndpointRecord moved = endpoint("relay", "kv-relay", "generate", r.connectionId(), "127.0.0.1:2/generate");
    r.put(moved);
    assertThat(DiscoveryCodec.decode(Files.readAllBytes(file))).isEqualTo(moved);
    assertThat(Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey())
        .isNotEqualTo(inode);

    // keep-alive: own mtime set to now; a foreign file older than now - TTL is swept, a fresh one kept
    Path orphan = file.resolveSibling("other%2Fx%2Fy%2F1");
    Path fresh = file.resolveSibling("other%2Fx%2Fy%2F2");
    Files.writeString(orphan, "{}");
    Files.writeString(fresh, "{}");
    clock.millis.addAndGet(30_000);
    Files.setLastModifiedTime(orphan, FileTime.fromMillis(clock.millis() - 10_001));
    Files.setLastModifiedTime(fresh, FileTime.fromMillis(clock.millis() - 9_000));
    r.keepAliveNow();
    assertThat(Files.getLastModifiedTime(file).toMillis()).isEqualTo(clock.millis());
    assertThat(orphan).doesNotExist();
    assertThat(fresh).exists();
    assertThat(r.stats().swept()).isEqualTo(1);

    // an own file deleted by someone else is published again at the next keep-alive
    Files.delete(file);
    r.keepAliveNow();
    assertThat(DiscoveryCodec.decode(Files.readAllBytes(file))).isEqualTo(moved);
    assertThat(r.stats().republished()).isEqualTo(1);

    EventChannelRecord channel = eventChannel("relay", "kv-relay", "generate", r.connectionId(), "tcp://127.0.0.1:3");
    r.put(channel);
    assertThat(r.fileOf(channel.key())).exists();
    assertThat(r.keys()).containsExactly(moved.key(), channel.key());
    assertThat(r.remove(channel.key())).isTrue();
    assertThat(r.fileOf(channel.key())).doesNotExist();
    assertThat(r.remove(channel.key())).isFalse();

    r.close();
    assertThat(file).doesNotExist();
    assertThat(fresh).exists(); // only own files are deleted at shutdown
    assertThatThrownBy(() -> r.put(moved)).isInstanceOfSatisfying(DiscoveryException.class,
        e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.CLOSED));
    r.close(); // idempotent
  }

  @Test
  void aStaleFileOfAnEarlierProcessUnderTheSameKeyIsReplaced() throws Exception {
    FileKvRegistration r = new FileKvRegistration(root, Duration.ofSeconds(10), Clock.systemUTC(), x -> { });
    EndpointRecord own = endpoint("relay", "kv-relay", "generate", r.connectionId(), "127.0.0.1:1/generate");
    Path file = r.fileOf(own.key());
    Files.createDirectories(file.getParent());
    Files.writeString(file, "left over");
    r.put(own);
    assertThat(DiscoveryCodec.decode(Files.readAllBytes(file))).isEqualTo(own);
    assertThat(names(file.getParent(), KeyFileNames::isTemporary)).isZero();
    r.close();
  }

  @Test
  void theBackgroundKeepAliveRunsEveryThirdOfTheTtlButNotMoreOftenThanOnceASecond() throws Exception {
    FileKvRegistration r = new FileKvRegistration(root, Duration.ofSeconds(1), Clock.systemUTC(), x -> { });
    r.put(endpoint("relay", "kv-relay", "generate", r.connectionId(), "127.0.0.1:1/generate"));
    long start = System.nanoTime();
    long deadline = start + Duration.ofSeconds(20).toNanos();
    while (r.stats().refreshes() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(r.stats().refreshes()).isGreaterThanOrEqualTo(2);
    assertThat(elapsedMillis).as("two rounds at a 1 s minimum period").isGreaterThanOrEqualTo(1_900);
    r.close();
  }
}
