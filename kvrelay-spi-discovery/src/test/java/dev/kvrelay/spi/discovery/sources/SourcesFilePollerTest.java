package dev.kvrelay.spi.discovery.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.spi.discovery.sources.SourcesException.Reason;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SourcesFilePollerTest {
  private static final String AB = "{\"version\":1,\"sources\":[{\"namespace\":\"a\"},{\"namespace\":\"b\"}]}";
  private static final String AB_REVISION = "2ab89c10c04007ae0b4ca7cecd7734f9d9faaca5d20d4b9f6fe0a40105c7a804";
  private static final String EMPTY_REVISION = "b6e0bb87bd5035885d74e6e0a9345b7baad41e7ecfd1a03f366f11483213bd6e";

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("sources.json");
  }

  /** Replaces the file atomically, as an operator's writer should. */
  private void write(String json) throws Exception {
    Path temp = dir.resolve("sources.json.tmp");
    Files.writeString(temp, json);
    Files.move(temp, file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static Clock fixed(long seconds) {
    return Clock.fixed(Instant.ofEpochSecond(seconds), ZoneOffset.UTC);
  }

  @Test
  void yieldsValidChangesKeepsTheLastAppliedOnAnInvalidUpdateAndRecovers() throws Exception {
    List<SourcesDocument> yielded = new ArrayList<>();
    write(AB);
    try (SourcesFilePoller p = SourcesFilePoller.builder(file(), yielded::add).clock(fixed(100)).build()) {
      assertThat(p.status()).isEqualTo(SourcesStatus.INITIAL);
      p.pollOnce();
      assertThat(yielded).extracting(SourcesDocument::revision).containsExactly(AB_REVISION);
      assertThat(p.status()).isEqualTo(new SourcesStatus(AB_REVISION, AB_REVISION, 2, null, Instant.ofEpochSecond(100)));

      // the same document again (even reformatted): nothing yielded
      write("{\"sources\":[{\"namespace\":\"b\"},{\"namespace\":\"a\"}],\"version\":1}");
      p.pollOnce();
      assertThat(yielded).hasSize(1);

      // an invalid update: nothing yielded, the applied sources stay, desired is null, the error is typed
      write("{\"version\":2,\"sources\":[]}");
      p.pollOnce();
      assertThat(yielded).hasSize(1);
      assertThat(p.applied().namespaces()).containsExactly("a", "b");
      SourcesStatus s = p.status();
      assertThat(s.desiredRevision()).isNull();
      assertThat(s.appliedRevision()).isEqualTo(AB_REVISION);
      assertThat(s.count()).isEqualTo(2);
      assertThat(s.lastError().reason()).isEqualTo(Reason.UNSUPPORTED_VERSION);

      Files.delete(file());
      p.pollOnce();
      assertThat(p.status().lastError().reason()).isEqualTo(Reason.UNAVAILABLE);
      assertThat(p.status().appliedRevision()).isEqualTo(AB_REVISION);

      // recovery: a valid change is yielded and the error cleared
      write("{\"version\":1,\"sources\":[]}");
      p.pollOnce();
      assertThat(yielded).extracting(SourcesDocument::revision).containsExactly(AB_REVISION, EMPTY_REVISION);
      assertThat(p.status()).isEqualTo(new SourcesStatus(EMPTY_REVISION, EMPTY_REVISION, 0, null,
          Instant.ofEpochSecond(100)));
    }
  }

  @Test
  void aListenerThatRefusesKeepsThePreviousSourcesAndIsOfferedTheDocumentAgain() throws Exception {
    List<String> offered = new ArrayList<>();
    boolean[] refuse = {true};
    write(AB);
    try (SourcesFilePoller p = SourcesFilePoller.builder(file(), d -> {
      offered.add(d.revision());
      if (refuse[0]) {
        throw new IllegalStateException("engine busy");
      }
    }).build()) {
      p.pollOnce();
      assertThat(p.applied()).isNull();
      assertThat(p.status().desiredRevision()).isEqualTo(AB_REVISION);
      assertThat(p.status().appliedRevision()).isNull();
      assertThat(p.status().lastError().reason()).isEqualTo(Reason.APPLY_FAILED);
      refuse[0] = false;
      p.pollOnce();
      assertThat(offered).containsExactly(AB_REVISION, AB_REVISION);
      assertThat(p.status().appliedRevision()).isEqualTo(AB_REVISION);
      assertThat(p.status().lastError()).isNull();
    }
  }

  @Test
  void theConfiguredConnectionRevisionMustMatch() throws Exception {
    write("{\"version\":1,\"connectionRevision\":\"other\",\"sources\":[]}");
    try (SourcesFilePoller p = SourcesFilePoller.builder(file(), d -> { }).connectionRevision("connection").build()) {
      p.pollOnce();
      assertThat(p.status().lastError().reason()).isEqualTo(Reason.CONNECTION_REVISION_MISMATCH);
      write("{\"version\":1,\"connectionRevision\":\"connection\",\"sources\":[{\"namespace\":\"a\"},"
          + "{\"namespace\":\"b\"}]}");
      p.pollOnce();
      assertThat(p.status().appliedRevision())
          .isEqualTo("d793bc7776b7e52603aba31342748306200023f865cac23f3d3dd83be7d9f565");
    }
  }

  @Test
  void startupWaitsForAFirstValidDocumentAndOtherwiseFailsWithTheLastError() throws Exception {
    try (SourcesFilePoller p = SourcesFilePoller.builder(file(), d -> { }).interval(Duration.ofMillis(50)).build()) {
      assertThatThrownBy(() -> p.awaitFirst(Duration.ofMillis(300)))
          .isInstanceOfSatisfying(SourcesException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE));
    }
    write("{\"version\":1,\"sources\":[");
    try (SourcesFilePoller p = SourcesFilePoller.builder(file(), d -> { }).interval(Duration.ofMillis(50)).build()) {
      assertThatThrownBy(() -> p.awaitFirst(Duration.ofMillis(300)))
          .isInstanceOfSatisfying(SourcesException.class, e -> assertThat(e.reason()).isEqualTo(Reason.INVALID_JSON));
      write(AB);
      assertThat(p.awaitFirst(Duration.ofSeconds(10)).revision()).isEqualTo(AB_REVISION);
    }
  }

  @Test
  void theBackgroundPollerPicksUpChanges() throws Exception {
    List<SourcesDocument> yielded = new CopyOnWriteArrayList<>();
    write("{\"version\":1,\"sources\":[]}");
    try (SourcesFilePoller p = SourcesFilePoller.builder(file(), yielded::add).interval(Duration.ofMillis(50)).build()) {
      p.start();
      awaitSize(yielded, 1);
      write(AB);
      awaitSize(yielded, 2);
      assertThat(yielded.get(1).namespaces()).containsExactly("a", "b");
    }
  }

  private static void awaitSize(List<?> list, int size) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (list.size() < size) {
      assertThat(System.nanoTime()).as("waiting for %d yields", size).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  @Test
  void aReadThatHangsTimesOut() throws Exception {
    Path fifo = dir.resolve("sources.fifo");
    Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assumeTrue(mk.waitFor(10, TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo unavailable");
    try (SourcesFilePoller p = SourcesFilePoller.builder(fifo, d -> { }).readTimeout(Duration.ofMillis(200)).build()) {
      p.pollOnce(); // opening a FIFO with no writer blocks
      assertThat(p.status().lastError().reason()).isEqualTo(Reason.READ_TIMEOUT);
      p.pollOnce(); // still the same pending read, not a second reader
      assertThat(p.status().lastError().reason()).isEqualTo(Reason.READ_TIMEOUT);
      try (OutputStream w = Files.newOutputStream(fifo)) {
        w.write(AB.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (p.status().appliedRevision() == null && System.nanoTime() < deadline) {
        p.pollOnce();
      }
      assertThat(p.status().appliedRevision()).isEqualTo(AB_REVISION);
    }
  }
}
