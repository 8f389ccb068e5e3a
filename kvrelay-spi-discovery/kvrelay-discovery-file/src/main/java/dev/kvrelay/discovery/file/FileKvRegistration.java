package dev.kvrelay.discovery.file;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrar;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (one lock serialises publishing, keep-alive, sweeping and close; keep-alive runs on one daemon
 * thread): the relay's own records in a Dynamo file KV root, kept the way a Dynamo process keeps its keys
 * ({@code plugins-wire §8}). It has a random 64-bit {@link #connectionId()} (Dynamo uses it as the instance id in
 * the keys it writes).
 *
 * <ul>
 *   <li>{@link #put}: the value is written to {@code .tmp_<16 hex>} in the bucket directory (create-new), then
 *       published by a hard link to the key's file for a key this registration does not own yet, or by a rename
 *       over it for an update; readers never see a partial file. A file left by someone else under the same key
 *       is replaced.
 *   <li>Every {@code max(TTL/3, 1 s)} the mtime of each own file is set to now; an own file found deleted
 *       (swept by another process while this one was late) is published again. Then every regular file in the
 *       directories this registration wrote to whose mtime is older than now − TTL is deleted, other processes'
 *       orphans included.
 *   <li>{@link #close()} deletes every own file.
 * </ul>
 */
public final class FileKvRegistration implements DiscoveryRegistrar {
  private static final Logger LOG = LoggerFactory.getLogger(FileKvRegistration.class);
  private static final Duration MIN_KEEP_ALIVE = Duration.ofSeconds(1);
  private static final int TEMP_ATTEMPTS = 16;
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * Immutable and thread-safe: counters of one registration.
   *
   * @param published values written (puts and re-publications)
   * @param refreshes keep-alive rounds run
   * @param republished own files found missing at keep-alive and written again
   * @param swept expired files deleted from the active directories
   * @param writeErrors failed writes, touches, deletes and directory listings, and files a sweep could not stat
   *     (other than those that vanished meanwhile; they are left for the next sweep)
   * @param keepAliveFailures background keep-alive rounds that threw (the rest of the round was dropped; the next
   *     one runs on time)
   */
  public record Stats(long published, long refreshes, long republished, long swept, long writeErrors,
      long keepAliveFailures) {}

  /** Not thread-safe: guarded by the registration's lock; one own file and the value it holds. */
  @SuppressWarnings("ArrayRecordComponent") // a map value only: never compared, hashed or printed
  private record Owned(Path file, byte[] value) {}

  private final Path root;
  private final long ttlMillis;
  private final Clock clock;
  private final long connectionId;
  private final Consumer<FileKvRegistration> onClose;
  private final ScheduledExecutorService keepAlive;
  private final Map<DiscoveryKey, Owned> owned = new TreeMap<>(DiscoveryKey.ORDER);
  private final Set<Path> activeDirs = new LinkedHashSet<>();
  private boolean closed;
  private long published;
  private long refreshes;
  private long republished;
  private long swept;
  private long writeErrors;
  private final AtomicLong keepAliveFailures = new AtomicLong();

  FileKvRegistration(Path root, Duration ttl, Clock clock, Consumer<FileKvRegistration> onClose) {
    this.root = root;
    this.ttlMillis = ttl.toMillis();
    this.clock = clock;
    this.onClose = onClose;
    long id;
    do {
      id = RANDOM.nextLong();
    } while (id == 0);
    this.connectionId = id;
    Duration period = ttl.dividedBy(3).compareTo(MIN_KEEP_ALIVE) < 0 ? MIN_KEEP_ALIVE : ttl.dividedBy(3);
    String threadName = "kvrelay-file-kv-" + Long.toHexString(id);
    this.keepAlive = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
    // The future is not needed: keepAliveRound() logs its own failures, and close() ends the executor.
    ScheduledFuture<?> unused = keepAlive.scheduleWithFixedDelay(
        this::keepAliveRound, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    LOG.info("file discovery: registration {} in {} (keep-alive every {} ms)", Long.toHexString(id), root,
        period.toMillis());
  }

  /** This registration's random connection id (never 0); {@link Long#toHexString} gives Dynamo's key form. */
  public long connectionId() {
    return connectionId;
  }

  /**
   * Publishes (or replaces) a record at its key's file.
   *
   * @throws DiscoveryException {@code CLOSED} after {@link #close()}; {@code UNAVAILABLE} if it cannot be written
   */
  public synchronized void put(DiscoveryRecord record) throws DiscoveryException {
    if (closed) {
      throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "file KV registration is closed");
    }
    byte[] value = Json.writeUtf8(DiscoveryCodec.encode(record));
    try {
      publish(record.key(), value, !owned.containsKey(record.key()));
    } catch (IOException e) {
      writeErrors++;
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE,
          "cannot publish " + record.key().storageKey() + ": " + e, e);
    }
  }

  /**
   * Deletes an own record's file.
   *
   * @return true if the key was owned
   * @throws DiscoveryException {@code UNAVAILABLE} if the file exists but cannot be deleted
   */
  public synchronized boolean remove(DiscoveryKey key) throws DiscoveryException {
    Owned o = owned.remove(key);
    if (o == null) {
      return false;
    }
    try {
      Files.deleteIfExists(o.file());
      return true;
    } catch (IOException e) {
      writeErrors++;
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "cannot delete " + o.file() + ": " + e, e);
    }
  }

  /** The connection id: Dynamo's file store names endpoint and model keys by it ({@link DiscoveryRegistrar}). */
  @Override
  public long instanceId() {
    return connectionId;
  }

  /**
   * {@link #put} after the owner check: endpoint and model keys must carry {@link #connectionId()}.
   *
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} for another instance's key, else as {@link #put}
   */
  @Override
  public void register(DiscoveryRecord record) throws DiscoveryException {
    DiscoveryRegistrar.requireOwnedBy(connectionId, record.key());
    put(record);
  }

  /**
   * {@link #remove}.
   *
   * @throws DiscoveryException {@code CLOSED} after {@link #close()}, else as {@link #remove}
   */
  @Override
  public synchronized boolean deregister(DiscoveryKey key) throws DiscoveryException {
    if (closed) {
      throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "file KV registration is closed");
    }
    return remove(key);
  }

  /** The keys this registration owns, sorted by {@link DiscoveryKey#ORDER}. */
  public synchronized List<DiscoveryKey> keys() {
    return List.copyOf(owned.keySet());
  }

  /** The file a key is stored in under this root. */
  public Path fileOf(DiscoveryKey key) {
    return root.resolve(key.kind().bucket()).resolve(KeyFileNames.encode(key.path()));
  }

  /** A snapshot of the counters. */
  public synchronized Stats stats() {
    return new Stats(published, refreshes, republished, swept, writeErrors, keepAliveFailures.get());
  }

  /** Runs one keep-alive round now (touch, re-publish, sweep), as the timer does. */
  public synchronized void keepAliveNow() {
    if (closed) {
      return;
    }
    refreshes++;
    FileTime now = FileTime.from(clock.instant());
    for (Map.Entry<DiscoveryKey, Owned> e : owned.entrySet()) {
      Path file = e.getValue().file();
      try {
        Files.setLastModifiedTime(file, now);
      } catch (NoSuchFileException missing) {
        try {
          publish(e.getKey(), e.getValue().value(), true);
          republished++;
          LOG.warn("file discovery: own file {} was deleted by someone else; published it again", file);
        } catch (IOException ex) {
          writeErrors++;
          LOG.warn("file discovery: cannot publish own file {} again: {}", file, ex.toString());
        }
      } catch (IOException ex) {
        writeErrors++;
        LOG.warn("file discovery: cannot refresh own file {}: {}", file, ex.toString());
      }
    }
    sweep();
  }

  private void keepAliveRound() {
    try {
      keepAliveNow();
    } catch (RuntimeException e) {
      keepAliveFailures.incrementAndGet();
      LOG.error("file discovery: keep-alive round failed; the next one runs on time", e);
    }
  }

  /** Deletes every expired regular file in the active directories (Dynamo's {@code delete_expired_files}). */
  private void sweep() {
    long deadline = clock.millis() - ttlMillis;
    for (Path dir : activeDirs) {
      List<Path> stale = new ArrayList<>();
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
        for (Path p : entries) {
          BasicFileAttributes a;
          try {
            a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
          } catch (NoSuchFileException e) {
            continue; // deleted meanwhile
          } catch (IOException e) {
            writeErrors++;
            LOG.warn("file discovery: cannot stat {} to sweep it: {}", p, e.toString());
            continue;
          }
          if (a.isRegularFile() && a.lastModifiedTime().toMillis() < deadline) {
            stale.add(p);
          }
        }
      } catch (IOException e) {
        writeErrors++;
        LOG.warn("file discovery: cannot list {} to sweep it: {}", dir, e.toString());
        continue;
      }
      for (Path p : stale) {
        try {
          if (Files.deleteIfExists(p)) {
            swept++;
            LOG.info("file discovery: deleted expired file {}", p);
          }
        } catch (IOException e) {
          writeErrors++;
          LOG.warn("file discovery: cannot delete expired file {}: {}", p, e.toString());
        }
      }
    }
  }

  private void publish(DiscoveryKey key, byte[] value, boolean create) throws IOException {
    Path dir = root.resolve(key.kind().bucket());
    Files.createDirectories(dir);
    activeDirs.add(dir);
    Path target = dir.resolve(KeyFileNames.encode(key.path()));
    Path temp = writeTemp(dir, value);
    try {
      // the published file carries the temp file's inode, so its mtime comes from this registration's clock
      Files.setLastModifiedTime(temp, FileTime.from(clock.instant()));
      if (create) {
        try {
          Files.createLink(target, temp);
          Files.delete(temp);
        } catch (FileAlreadyExistsException e) {
          Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        }
      } else {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
    owned.put(key, new Owned(target, value));
    published++;
  }

  private static Path writeTemp(Path dir, byte[] value) throws IOException {
    for (int attempt = 0; attempt < TEMP_ATTEMPTS; attempt++) {
      Path temp = dir.resolve(KeyFileNames.TEMP_PREFIX + String.format("%016x", RANDOM.nextLong()));
      OutputStream out;
      try {
        out = Files.newOutputStream(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (FileAlreadyExistsException e) {
        continue;
      }
      try (OutputStream o = out) {
        o.write(value);
      } catch (IOException e) {
        Files.deleteIfExists(temp);
        throw e;
      }
      return temp;
    }
    throw new IOException("no unique temporary file name in " + dir + " after " + TEMP_ATTEMPTS + " attempts");
  }

  /** Stops keep-alive and deletes every own file (Dynamo's {@code shutdown}). Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      keepAlive.shutdownNow();
      for (Owned o : owned.values()) {
        try {
          Files.deleteIfExists(o.file());
        } catch (IOException e) {
          writeErrors++;
          LOG.warn("file discovery: cannot delete own file {} at shutdown: {}", o.file(), e.toString());
        }
      }
      owned.clear();
    }
    onClose.accept(this);
    LOG.info("file discovery: registration {} closed, its files deleted", Long.toHexString(connectionId));
  }
}
