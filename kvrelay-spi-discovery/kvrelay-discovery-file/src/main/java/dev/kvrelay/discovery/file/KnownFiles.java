package dev.kvrelay.discovery.file;

import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: confined to the scanner thread of one {@link FileDiscovery}; what is known of the key files —
 * the valid record of each key with the file version it was read from, the bad and the unreadable files — and the
 * reading and validation of one file into that state. A file whose mtime is older than now − TTL counts as gone.
 * A bad file (a name that is no key, invalid JSON, a value that does not match its key, not a regular file, too
 * large) is counted once per version, logged, reported and changes nothing else.
 */
final class KnownFiles {
  /** Logged under the backend's name, as before this class was split out of it. */
  private static final Logger LOG = LoggerFactory.getLogger(FileDiscovery.class);

  /** Not thread-safe: confined to the scanner thread; where changes to the known state are reported. */
  interface Sink {
    /** A change to a key's record, for the watches whose scope holds the key. */
    void changed(DiscoveryKey key, Consumer<DiscoveryListener> call);

    /** A bad or unreadable file, for every watch. */
    void error(DiscoveryException error);
  }

  /**
   * Not thread-safe: confined to the scanner thread; what was made of one file ({@link Live} or {@link Bad}) and the
   * file version it stands for, which follows the file's refreshes while the value stays.
   */
  private static final class Versioned<T> {
    final T value;
    FileVersion version;

    Versioned(T value, FileVersion version) {
      this.value = value;
      this.version = version;
    }
  }

  /** Immutable and thread-safe: a known record and the file it was read from. */
  private record Live(Path file, DiscoveryRecord record) {}

  /**
   * Immutable and thread-safe: a reported bad file's error, with what identifies the reported version (its content,
   * or a description of what was wrong before the content was read).
   */
  private record Bad(Object identity, DiscoveryException error) {}

  /** Immutable and thread-safe: what stat says about one file version. */
  private record FileVersion(@Nullable Object fileKey, long size, FileTime mtime) {
    static FileVersion of(BasicFileAttributes a) {
      return new FileVersion(a.fileKey(), a.size(), a.lastModifiedTime());
    }
  }

  private final Duration ttl;
  private final long ttlMillis;
  private final Clock clock;
  private final FileCounters counters;
  private final Sink sink;
  private final Map<DiscoveryKey, Versioned<Live>> live = new HashMap<>();
  private final Map<Path, Versioned<Bad>> bad = new HashMap<>();
  private final Set<Path> unreadable = new HashSet<>();

  KnownFiles(Duration ttl, Clock clock, FileCounters counters, Sink sink) {
    this.ttl = ttl;
    this.ttlMillis = ttl.toMillis();
    this.clock = clock;
    this.counters = counters;
    this.sink = sink;
  }

  /** The known records by key. */
  Map<DiscoveryKey, DiscoveryRecord> records() {
    Map<DiscoveryKey, DiscoveryRecord> out = new HashMap<>();
    for (Map.Entry<DiscoveryKey, Versioned<Live>> e : live.entrySet()) {
      out.put(e.getKey(), e.getValue().value.record());
    }
    return out;
  }

  /** The known records within {@code scope}, sorted by {@link DiscoveryKey#ORDER}. */
  List<DiscoveryRecord> snapshot(DiscoveryScope scope) {
    List<DiscoveryRecord> snapshot = new ArrayList<>();
    for (Versioned<Live> l : live.values()) {
      if (scope.matches(l.value.record().key())) {
        snapshot.add(l.value.record());
      }
    }
    snapshot.sort((a, b) -> DiscoveryKey.ORDER.compare(a.key(), b.key()));
    return List.copyOf(snapshot);
  }

  /** The errors of the bad files currently known (for a new watch). */
  List<DiscoveryException> badFileErrors() {
    List<DiscoveryException> out = new ArrayList<>();
    for (Versioned<Bad> b : bad.values()) {
      out.add(b.value.error());
    }
    return out;
  }

  /** After a listing of {@code kind}'s directory {@code dir}: every file known there but not seen is gone. */
  void keepOnly(DiscoveryKind kind, Path dir, Set<Path> seen) {
    List<Path> vanished = new ArrayList<>();
    for (Versioned<Live> l : live.values()) {
      if (l.value.record().key().kind() == kind && !seen.contains(l.value.file())) {
        vanished.add(l.value.file());
      }
    }
    for (Path p : bad.keySet()) {
      if (dir.equals(p.getParent()) && !seen.contains(p)) {
        vanished.add(p);
      }
    }
    for (Path p : vanished) {
      gone(p, kind, false);
    }
  }

  /** How long until the earliest known deadline (mtime + TTL) passes; {@link Long#MAX_VALUE} if none. */
  long nanosUntilNextExpiry() {
    if (live.isEmpty()) {
      return Long.MAX_VALUE;
    }
    long earliest = Long.MAX_VALUE;
    for (Versioned<Live> l : live.values()) {
      earliest = Math.min(earliest, l.version.mtime().toMillis() + ttlMillis);
    }
    long millis = earliest - clock.millis() + 1;
    return millis <= 0 ? 0 : TimeUnit.MILLISECONDS.toNanos(millis);
  }

  /** Re-stats every known file whose deadline has passed: refreshed files live on, stale ones are removed. */
  void expireDue() {
    long now = clock.millis();
    List<Versioned<Live>> due = new ArrayList<>();
    for (Versioned<Live> l : live.values()) {
      if (l.version.mtime().toMillis() + ttlMillis < now) {
        due.add(l);
      }
    }
    for (Versioned<Live> l : due) {
      refresh(l.value.file(), l.value.record().key().kind());
      Versioned<Live> after = live.get(l.value.record().key());
      if (after == l && l.version.mtime().toMillis() + ttlMillis < clock.millis()) {
        // still not seen refreshed (e.g. it cannot be stat'ed): past its deadline it counts as gone
        gone(l.value.file(), l.value.record().key().kind(), true);
      }
    }
  }

  /** Reads the current state of one file and applies it. */
  void refresh(Path file, DiscoveryKind kind) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      gone(file, kind, false);
      return;
    } catch (IOException e) {
      readError(file, e);
      return;
    }
    unreadable.remove(file);
    FileVersion version = FileVersion.of(attributes);
    if (version.mtime().toMillis() < clock.millis() - ttlMillis) {
      gone(file, kind, true);
      return;
    }
    String fileName = file.getFileName().toString();
    String path;
    DiscoveryKey key;
    try {
      path = KeyFileNames.decode(fileName);
      key = DiscoveryKey.parse(kind, path);
    } catch (DiscoveryDecodeException e) {
      markBad(file, null, "name", e.at(kind.bucket() + "/" + fileName), version);
      return;
    }
    Versioned<Live> current = live.get(key);
    if (!attributes.isRegularFile()) {
      markBad(file, key, "not a regular file", new DiscoveryDecodeException(
          DiscoveryDecodeException.Reason.INVALID_PATH, "", key.storageKey(),
          "the entry " + file + " is not a regular file", null), version);
      return;
    }
    if (current != null && current.value.file().equals(file) && current.version.equals(version)) {
      return;
    }
    Versioned<Bad> reported = bad.get(file);
    if (reported != null && reported.version.equals(version)) {
      return;
    }
    if (attributes.size() > FileDiscovery.MAX_FILE_BYTES) {
      markBad(file, key, "size " + attributes.size() + " " + version.fileKey(), new DiscoveryDecodeException(
          DiscoveryDecodeException.Reason.INVALID_VALUE, "", key.storageKey(),
          "the file has " + attributes.size() + " bytes, more than the limit of " + FileDiscovery.MAX_FILE_BYTES,
          null), version);
      return;
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      gone(file, kind, false);
      return;
    } catch (IOException e) {
      readError(file, e);
      return;
    }
    DiscoveryRecord record;
    try {
      record = DiscoveryCodec.decodeAt(kind, path, bytes);
    } catch (DiscoveryDecodeException e) {
      markBad(file, key, ByteBuffer.wrap(bytes), e, version);
      return;
    }
    bad.remove(file);
    live.put(key, new Versioned<>(new Live(file, record), version));
    counters.liveRecords.set(live.size());
    if (current == null || !current.value.record().equals(record)) {
      sink.changed(key, l -> l.onUpserted(record));
    }
  }

  /**
   * Records a bad file: counted, logged and reported once per version (same identity: only its mtime is
   * followed, so that a record kept for its key stays alive while the bad file is refreshed).
   */
  private void markBad(Path file, @Nullable DiscoveryKey key, Object identity, DiscoveryException error,
      FileVersion version) {
    if (key != null) {
      Versioned<Live> kept = live.get(key);
      if (kept != null && kept.value.file().equals(file)) {
        kept.version = version;
      }
    }
    Versioned<Bad> previous = bad.get(file);
    if (previous != null && previous.value.identity().equals(identity)) {
      previous.version = version;
      return;
    }
    bad.put(file, new Versioned<>(new Bad(identity, error), version));
    counters.badFiles.incrementAndGet();
    LOG.warn("file discovery: skipped bad file {}: {}", file, error.getMessage());
    sink.error(error);
  }

  /** An I/O error reading a file: counted, logged and reported once until it is readable or gone again. */
  private void readError(Path file, IOException e) {
    if (!unreadable.add(file)) {
      return;
    }
    counters.readErrors.incrementAndGet();
    LOG.warn("file discovery: cannot read {}: {}", file, e.toString());
    sink.error(new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE,
        "cannot read " + file + ": " + e.getMessage(), e));
  }

  /** The file is absent or expired: forget it, and remove its record if it was the one known for its key. */
  void gone(Path file, DiscoveryKind kind, boolean byExpiry) {
    bad.remove(file);
    unreadable.remove(file);
    DiscoveryKey key;
    try {
      key = DiscoveryKey.parse(kind, KeyFileNames.decode(file.getFileName().toString()));
    } catch (DiscoveryDecodeException e) {
      return;
    }
    Versioned<Live> current = live.get(key);
    if (current == null || !current.value.file().equals(file)) {
      return;
    }
    live.remove(key);
    counters.liveRecords.set(live.size());
    if (byExpiry) {
      counters.expired.incrementAndGet();
      LOG.info("file discovery: {} expired (mtime {} older than the {} TTL)", key.storageKey(),
          current.version.mtime(), ttl);
    }
    sink.changed(key, l -> l.onRemoved(key));
  }
}
