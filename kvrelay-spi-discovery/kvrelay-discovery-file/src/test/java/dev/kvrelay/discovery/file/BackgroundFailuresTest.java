package dev.kvrelay.discovery.file;

import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.ForwardingListener;
import dev.kvrelay.spi.discovery.RecordingListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures of background work are counted in the stats, not only logged, and the backend goes on: a bucket
 * directory removed under its watch, a scanner step that throws, a listener that throws, a keep-alive round that
 * throws.
 */
class BackgroundFailuresTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path root;

  /** Thread-safe: the system clock, except that the next {@link #failures} reads of it throw. */
  static final class FailingClock extends Clock {
    final AtomicInteger failures = new AtomicInteger();

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("test clock failure");
      }
      return Instant.now();
    }
  }

  /** Thread-safe (state in the recorder): a listener whose upsert of one key throws instead of recording it. */
  static final class ThrowingOn extends ForwardingListener {
    final RecordingListener recorder;
    final DiscoveryKey poisoned;

    ThrowingOn(DiscoveryKey poisoned) {
      this(new RecordingListener(), poisoned);
    }

    private ThrowingOn(RecordingListener recorder, DiscoveryKey poisoned) {
      super(recorder);
      this.recorder = recorder;
      this.poisoned = poisoned;
    }

    @Override
    public void onUpserted(DiscoveryRecord record) {
      if (record.key().equals(poisoned)) {
        throw new IllegalStateException("test listener failure");
      }
      super.onUpserted(record);
    }
  }

  private Path write(DiscoveryRecord r) throws Exception {
    Path dir = root.resolve(r.key().kind().bucket());
    Files.createDirectories(dir);
    Path temp = dir.resolve(".tmp_" + Long.toHexString(System.nanoTime()));
    Files.write(temp, DiscoveryCodec.encodeToString(r).getBytes(StandardCharsets.UTF_8));
    Path target = dir.resolve(KeyFileNames.encode(r.key().path()));
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    return target;
  }

  private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  @Test
  void aBucketDirectoryRemovedUnderItsWatchIsCountedAndWatchedAgain() throws Exception {
    try (FileDiscovery d = FileDiscovery.builder(root).open()) {
      RecordingListener l = new RecordingListener();
      DiscoveryWatch watch = d.watch(DiscoveryScope.watchAll(), l);
      l.await(WAIT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());
      assertThat(d.stats().watchFailures()).isZero();

      // the inotify watch on a deleted directory ends: the JDK cancels its key and signals it once more
      Files.delete(root.resolve("v1/instances"));
      awaitTrue("the ended watch to be counted", () -> d.stats().watchFailures() >= 1);
      // the rescan that followed the ended watch re-created and re-watched the directory; this one runs after it
      d.rescanNow();
      assertThat(root.resolve("v1/instances")).isDirectory();
      long eventsBefore = d.stats().watchEvents();

      EndpointRecord a = endpoint("team-a", "backend", "generate", 1, "h:1/generate");
      write(a);
      l.await(WAIT, "a record written after the failure", x -> a.equals(x.view().get(a.key())));
      awaitTrue("file events from the new watch", () -> d.stats().watchEvents() > eventsBefore);
      assertThat(watch.isOpen()).isTrue();
      assertThat(d.stats().watchFailures()).isEqualTo(1);
      assertThat(d.stats().scannerFailures()).isZero();
      l.assertContractKept();
    }
  }

  @Test
  void aScannerStepThatThrowsIsCountedAndTheScannerGoesOn() throws Exception {
    FailingClock clock = new FailingClock();
    try (FileDiscovery d = FileDiscovery.builder(root).clock(clock).ttl(Duration.ofSeconds(3)).watchEvents(false)
        .open()) {
      RecordingListener l = new RecordingListener();
      DiscoveryWatch watch = d.watch(DiscoveryScope.watchAll(), l);
      l.await(WAIT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());
      assertThat(d.stats().scannerFailures()).isZero();

      clock.failures.set(1); // the scanner's next clock read (its expiry check, at least once a rescan) throws
      awaitTrue("the failed step to be counted", () -> d.stats().scannerFailures() >= 1);

      EndpointRecord a = endpoint("team-a", "backend", "generate", 1, "h:1/generate");
      write(a);
      l.await(WAIT, "a record found by a later rescan", x -> a.equals(x.view().get(a.key())));
      assertThat(watch.isOpen()).isTrue();
      assertThat(d.stats().scannerFailures()).isEqualTo(1);
      l.assertContractKept();
    }
  }

  @Test
  void aListenerThatThrowsIsCountedAndItsWatchGoesOn() throws Exception {
    EndpointRecord poisoned = endpoint("team-a", "backend", "generate", 1, "h:1/generate");
    EndpointRecord next = endpoint("team-a", "backend", "generate", 2, "h:2/generate");
    try (FileDiscovery d = FileDiscovery.builder(root).open()) {
      ThrowingOn l = new ThrowingOn(poisoned.key());
      DiscoveryWatch watch = d.watch(DiscoveryScope.watchAll(), l);
      l.recorder.await(WAIT, "the snapshot", x -> !x.payloads("snapshot").isEmpty());

      write(poisoned);
      awaitTrue("the listener failure to be counted", () -> d.stats().listenerFailures() >= 1);
      write(next);
      l.recorder.await(WAIT, "the next record", x -> next.equals(x.view().get(next.key())));
      assertThat(watch.isOpen()).isTrue();
      assertThat(l.recorder.view()).doesNotContainKey(poisoned.key());
      assertThat(d.stats().listenerFailures()).isGreaterThanOrEqualTo(1);
      assertThat(d.stats().scannerFailures()).isZero();
    }
  }

  @Test
  void aKeepAliveRoundThatThrowsIsCountedAndTheNextOneRuns() throws Exception {
    FailingClock clock = new FailingClock();
    FileKvRegistration r = new FileKvRegistration(root, Duration.ofSeconds(1), clock, x -> { });
    try {
      r.put(endpoint("relay", "kv-relay", "generate", r.connectionId(), "127.0.0.1:1/generate"));
      assertThat(r.stats().keepAliveFailures()).isZero();

      clock.failures.set(1); // the next keep-alive round's clock read throws
      awaitTrue("the failed round to be counted", () -> r.stats().keepAliveFailures() >= 1);
      long roundsAtFailure = r.stats().refreshes();
      awaitTrue("a later round", () -> r.stats().refreshes() > roundsAtFailure);
      assertThat(r.stats().keepAliveFailures()).isEqualTo(1);
      assertThat(r.stats().writeErrors()).isZero();
    } finally {
      r.close();
    }
  }
}
