package dev.kvrelay.discovery.file;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_DELETE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;
import static java.nio.file.StandardWatchEventKinds.OVERFLOW;

import dev.kvrelay.api.json.JsonLimits;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the {@code file} discovery backend over one Dynamo file KV root ({@code plugins-wire §8}). One
 * scanner thread owns all state: it reads the four bucket directories ({@code v1/instances}, {@code v1/mdc},
 * {@code v1/event_channels}, {@code v1/event_sources}), where each key is one file named by {@link KeyFileNames}
 * holding the raw {@code DiscoveryInstance} JSON, decoded by {@link DiscoveryCodec#decodeAt}. A file whose mtime
 * is older than now − TTL counts as gone; names starting with {@code .tmp_} are skipped.
 *
 * <p>Changes are seen through a {@link WatchService} on each bucket directory (an event makes the scanner re-read
 * that file) and through a full rescan every TTL/3, after an {@code OVERFLOW} and before each new watch's
 * snapshot, diffed with {@link DiscoveryDiff} into upserts and removals; expiry by mtime is also checked at each known file's deadline. Each
 * watch delivers on its own thread, in the order the scanner saw the changes. A bad file (a name that is no key,
 * invalid JSON, a value that does not match its key, not a regular file, too large) is counted once per version,
 * logged, reported through {@link DiscoveryListener#onError}, and changes nothing: a record already known for the
 * key stays until its file is deleted, expires or becomes valid.
 *
 * <p>Model-card taint changes arrive as {@link DiscoveryListener#onUpserted} of the rewritten card. {@link
 * #register()} publishes the relay's own records into the same tree ({@link FileKvRegistration}).
 */
public final class FileDiscovery implements DiscoveryBackend {
  private static final Logger LOG = LoggerFactory.getLogger(FileDiscovery.class);
  private static final AtomicLong IDS = new AtomicLong();

  /** Dynamo's TTL: the same as its etcd lease. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);
  /** The shortest TTL Dynamo accepts. */
  public static final Duration MIN_TTL = Duration.ofSeconds(1);
  /** Largest file read: the JSON reader's default limit; larger files are bad. */
  public static final int MAX_FILE_BYTES = JsonLimits.DEFAULT_MAX_LENGTH;

  private static final long WATCH_SETUP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final Path root;
  private final Duration ttl;
  private final long ttlMillis;
  private final Clock clock;
  private final long rescanPeriodNanos;
  private final @Nullable WatchService watchService;
  private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
  private final Thread scanner;
  private final @Nullable Thread pump;
  private final String name;
  private final List<FileWatch> watches = new CopyOnWriteArrayList<>();
  private final List<FileKvRegistration> registrations = new CopyOnWriteArrayList<>();
  private final Object lifecycle = new Object();
  private volatile boolean closed;
  private volatile @Nullable CountDownLatch pumpGate;

  private final AtomicLong liveRecords = new AtomicLong();
  private final AtomicLong badFiles = new AtomicLong();
  private final AtomicLong readErrors = new AtomicLong();
  private final AtomicLong expired = new AtomicLong();
  private final AtomicLong watchEvents = new AtomicLong();
  private final AtomicLong overflows = new AtomicLong();
  private final AtomicLong rescans = new AtomicLong();
  private final AtomicLong listenerFailures = new AtomicLong();

  // ---- confined to the scanner thread ----
  private final Map<DiscoveryKey, Live> live = new HashMap<>();
  private final Map<Path, Bad> bad = new HashMap<>();
  private final Map<WatchKey, DiscoveryKind> watchKeys = new HashMap<>();
  private final EnumSet<DiscoveryKind> watchedKinds = EnumSet.noneOf(DiscoveryKind.class);
  private final Set<Path> unusableDirs = new HashSet<>();
  private final Set<Path> unreadable = new HashSet<>();
  private boolean batching;

  /** Not thread-safe: confined to the scanner thread; a known record and the file version it was read from. */
  private static final class Live {
    final Path file;
    final DiscoveryRecord record;
    FileVersion version;

    Live(Path file, DiscoveryRecord record, FileVersion version) {
      this.file = file;
      this.record = record;
      this.version = version;
    }
  }

  /**
   * Not thread-safe: confined to the scanner thread; a reported bad file, with what identifies the reported
   * version (its content, or a description of what was wrong before the content was read).
   */
  private static final class Bad {
    final Object identity;
    final DiscoveryException error;
    FileVersion version;

    Bad(Object identity, DiscoveryException error, FileVersion version) {
      this.identity = identity;
      this.error = error;
      this.version = version;
    }
  }

  /** Immutable and thread-safe: what stat says about one file version. */
  private record FileVersion(@Nullable Object fileKey, long size, FileTime mtime) {
    static FileVersion of(BasicFileAttributes a) {
      return new FileVersion(a.fileKey(), a.size(), a.lastModifiedTime());
    }
  }

  /** Not thread-safe: confined to the thread that builds the backend; the options of a {@link FileDiscovery}. */
  public static final class Builder {
    private final Path root;
    private Duration ttl = DEFAULT_TTL;
    private Clock clock = Clock.systemUTC();
    private boolean watchEvents = true;

    private Builder(Path root) {
      this.root = Objects.requireNonNull(root, "root");
    }

    /** The liveness TTL (default {@link #DEFAULT_TTL}, at least {@link #MIN_TTL}); rescans run every TTL/3. */
    public Builder ttl(Duration ttl) {
      this.ttl = Objects.requireNonNull(ttl, "ttl");
      return this;
    }

    /** The wall clock file mtimes are compared with (default the system clock; tests inject their own). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Whether to use a {@link WatchService} (default true). Without it, changes are seen only by the rescans
     * every TTL/3, as they would be if every event were lost.
     */
    public Builder watchEvents(boolean watchEvents) {
      this.watchEvents = watchEvents;
      return this;
    }

    /**
     * Opens the backend: creates the bucket directories if missing (as a Dynamo process does) and starts the
     * scanner.
     *
     * @throws DiscoveryException {@code INVALID_CONFIGURATION} if the TTL is below {@link #MIN_TTL} or the root
     *     is not a directory; {@code UNAVAILABLE} if the directories cannot be created or watched
     */
    public FileDiscovery open() throws DiscoveryException {
      if (ttl.compareTo(MIN_TTL) < 0) {
        throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
            "file KV TTL " + ttl + " is below the minimum " + MIN_TTL);
      }
      if (Files.exists(root) && !Files.isDirectory(root)) {
        throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
            "file KV root " + root + " is not a directory");
      }
      for (DiscoveryKind kind : DiscoveryKind.values()) {
        try {
          Files.createDirectories(root.resolve(kind.bucket()));
        } catch (IOException e) {
          throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE,
              "cannot create the file KV bucket directory " + root.resolve(kind.bucket()) + ": " + e, e);
        }
      }
      WatchService ws = null;
      if (watchEvents) {
        try {
          ws = root.getFileSystem().newWatchService();
        } catch (IOException e) {
          throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "cannot open a file watch service: " + e, e);
        }
      }
      return new FileDiscovery(root, ttl, clock, ws);
    }
  }

  /** Options for a backend over {@code root} (the {@code DYN_FILE_KV} directory). */
  public static Builder builder(Path root) {
    return new Builder(root);
  }

  private FileDiscovery(Path root, Duration ttl, Clock clock, @Nullable WatchService watchService) {
    this.root = root;
    this.ttl = ttl;
    this.ttlMillis = ttl.toMillis();
    this.clock = clock;
    this.rescanPeriodNanos = ttl.toNanos() / 3;
    this.watchService = watchService;
    this.name = "kvrelay-file-discovery-" + IDS.incrementAndGet();
    this.scanner = new Thread(this::runScanner, name + "-scanner");
    this.scanner.setDaemon(true);
    if (watchService != null) {
      this.pump = new Thread(() -> pumpEvents(watchService), name + "-events");
      this.pump.setDaemon(true);
    } else {
      this.pump = null;
    }
    LOG.info("file discovery: watching {} (TTL {}, rescan every {} ms, file events {})", root, ttl,
        TimeUnit.NANOSECONDS.toMillis(rescanPeriodNanos), watchService != null ? "on" : "off");
    scanner.start();
    if (pump != null) {
      pump.start();
    }
  }

  /** The root directory. */
  public Path root() {
    return root;
  }

  /** The liveness TTL. */
  public Duration ttl() {
    return ttl;
  }

  /** A snapshot of the counters. */
  public FileDiscoveryStats stats() {
    return new FileDiscoveryStats(liveRecords.get(), badFiles.get(), readErrors.get(), expired.get(),
        watchEvents.get(), overflows.get(), rescans.get(), listenerFailures.get());
  }

  @Override
  public DiscoveryWatch watch(DiscoveryScope scope, DiscoveryListener listener) throws DiscoveryException {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(listener, "listener");
    if (closed) {
      throw closedException();
    }
    FileWatch watch = new FileWatch(scope, listener, name + "-watch-" + IDS.incrementAndGet(), watches::remove,
        listenerFailures);
    CompletableFuture<Void> started = new CompletableFuture<>();
    inbox.add(() -> {
      if (closed) {
        started.completeExceptionally(closedException());
        return;
      }
      rescanAll();
      List<DiscoveryRecord> snapshot = new ArrayList<>();
      for (Live l : live.values()) {
        if (scope.matches(l.record.key())) {
          snapshot.add(l.record);
        }
      }
      snapshot.sort((a, b) -> DiscoveryKey.ORDER.compare(a.key(), b.key()));
      List<DiscoveryRecord> frozen = List.copyOf(snapshot);
      watch.post(l -> l.onSnapshot(frozen));
      for (Bad b : bad.values()) {
        watch.post(l -> l.onError(b.error));
      }
      watches.add(watch);
      started.complete(null);
    });
    awaitOnScanner(started, watch);
    return watch;
  }

  private void awaitOnScanner(CompletableFuture<Void> started, FileWatch watch) throws DiscoveryException {
    long deadline = System.nanoTime() + WATCH_SETUP_TIMEOUT_NANOS;
    while (true) {
      try {
        started.get(100, TimeUnit.MILLISECONDS);
        return;
      } catch (TimeoutException e) {
        if (closed) {
          watch.close();
          throw closedException();
        }
        if (System.nanoTime() - deadline > 0) {
          watch.close();
          throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE,
              "the file discovery scanner did not start the watch within 30 s");
        }
      } catch (ExecutionException e) {
        watch.close();
        if (e.getCause() instanceof DiscoveryException) {
          throw (DiscoveryException) e.getCause();
        }
        throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "file discovery watch failed", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        watch.close();
        throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted while starting a watch", e);
      }
    }
  }

  /**
   * Starts publishing the relay's own records into this root, as a Dynamo process with its own connection id
   * does; closing this backend closes it too.
   *
   * @throws DiscoveryException {@code CLOSED} after {@link #close()}
   */
  public FileKvRegistration register() throws DiscoveryException {
    return registrar();
  }

  /** A new registration ({@link #register()}): a Dynamo process with its own connection id in this root. */
  @Override
  public FileKvRegistration registrar() throws DiscoveryException {
    synchronized (lifecycle) {
      if (closed) {
        throw closedException();
      }
      FileKvRegistration r = new FileKvRegistration(root, ttl, clock, registrations::remove);
      registrations.add(r);
      return r;
    }
  }

  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
    }
    inbox.add(() -> { });
    if (Thread.currentThread() != scanner) {
      try {
        scanner.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (FileWatch w : new ArrayList<>(watches)) {
      w.close();
    }
    for (FileKvRegistration r : new ArrayList<>(registrations)) {
      r.close();
    }
    if (watchService != null) {
      try {
        watchService.close();
      } catch (IOException e) {
        LOG.warn("file discovery: closing the watch service failed", e);
      }
    }
    LOG.info("file discovery: closed {}", root);
  }

  private static DiscoveryException closedException() {
    return new DiscoveryException(DiscoveryException.Kind.CLOSED, "file discovery is closed");
  }

  // ---- test hooks (run on the scanner thread) ----

  /** Runs a full rescan on the scanner thread and waits for it (tests with an injected clock). */
  void rescanNow() throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    inbox.add(() -> {
      rescanAll();
      done.countDown();
    });
    if (!done.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("scanner did not rescan within 30 s");
    }
  }

  /**
   * Blocks the scanner, and the event pump after the key it may be taking, until the returned handle is closed;
   * events then pile up in the JDK's watch keys (tests that make them overflow).
   */
  AutoCloseable pauseScanner() throws InterruptedException {
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    pumpGate = resume;
    inbox.add(() -> {
      paused.countDown();
      try {
        resume.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    if (!paused.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("scanner did not pause within 30 s");
    }
    return () -> {
      pumpGate = null;
      resume.countDown();
    };
  }

  // ---- the event pump thread ----

  private void pumpEvents(WatchService ws) {
    while (true) {
      WatchKey key;
      try {
        CountDownLatch gate = pumpGate;
        if (gate != null) {
          gate.await();
        }
        key = ws.take();
      } catch (ClosedWatchServiceException | InterruptedException e) {
        return;
      }
      List<WatchEvent<?>> events = key.pollEvents();
      boolean valid = key.reset();
      inbox.add(() -> onEvents(key, events, valid));
    }
  }

  // ---- the scanner thread ----

  private void runScanner() {
    long nextRescan = System.nanoTime();
    while (!closed) {
      try {
        long now = System.nanoTime();
        if (now - nextRescan >= 0) {
          rescanAll();
          nextRescan = System.nanoTime() + rescanPeriodNanos;
          now = System.nanoTime();
        }
        long wait = Math.max(0, Math.min(nextRescan - now, nanosUntilNextExpiry()));
        Runnable task = inbox.poll(wait, TimeUnit.NANOSECONDS);
        if (task != null) {
          task.run();
          Runnable more;
          while (!closed && (more = inbox.poll()) != null) {
            more.run();
          }
        }
        expireDue();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.error("file discovery: scanner step failed; it goes on", e);
      }
    }
  }

  private long nanosUntilNextExpiry() {
    if (live.isEmpty()) {
      return Long.MAX_VALUE;
    }
    long earliest = Long.MAX_VALUE;
    for (Live l : live.values()) {
      earliest = Math.min(earliest, l.version.mtime().toMillis() + ttlMillis);
    }
    long millis = earliest - clock.millis() + 1;
    return millis <= 0 ? 0 : TimeUnit.MILLISECONDS.toNanos(millis);
  }

  /** Re-stats every known file whose deadline has passed: refreshed files live on, stale ones are removed. */
  private void expireDue() {
    long now = clock.millis();
    List<Live> due = new ArrayList<>();
    for (Live l : live.values()) {
      if (l.version.mtime().toMillis() + ttlMillis < now) {
        due.add(l);
      }
    }
    for (Live l : due) {
      refreshFile(l.file, l.record.key().kind());
      Live after = live.get(l.record.key());
      if (after == l && l.version.mtime().toMillis() + ttlMillis < clock.millis()) {
        // still not seen refreshed (e.g. it cannot be stat'ed): past its deadline it counts as gone
        gone(l.file, l.record.key().kind(), true);
      }
    }
  }

  private void onEvents(WatchKey key, List<WatchEvent<?>> events, boolean valid) {
    DiscoveryKind kind = watchKeys.get(key);
    if (kind == null) {
      return;
    }
    Path dir = (Path) key.watchable();
    boolean overflow = false;
    Set<Path> touched = new LinkedHashSet<>();
    for (WatchEvent<?> e : events) {
      watchEvents.incrementAndGet();
      if (e.kind() == OVERFLOW) {
        overflow = true;
        continue;
      }
      Path fileName = (Path) e.context();
      if (fileName == null || KeyFileNames.isTemporary(fileName.toString())) {
        continue;
      }
      touched.add(dir.resolve(fileName));
    }
    if (!valid) {
      watchKeys.remove(key);
      watchedKinds.remove(kind);
      LOG.warn("file discovery: the watch on {} ended (directory removed?); rescanning", dir);
      rescanAll();
      return;
    }
    if (overflow) {
      overflows.incrementAndGet();
      LOG.warn("file discovery: file events overflowed on {}; rescanning every bucket", dir);
      rescanAll();
      return;
    }
    for (Path file : touched) {
      refreshFile(file, kind);
    }
  }

  /**
   * Re-reads every bucket directory, then reports the {@link DiscoveryDiff} between the records known before and
   * after (so several changes to one key within a rescan are one upsert or removal).
   */
  private void rescanAll() {
    rescans.incrementAndGet();
    Map<DiscoveryKey, DiscoveryRecord> before = knownRecords();
    batching = true;
    try {
      for (DiscoveryKind kind : DiscoveryKind.values()) {
        rescan(kind);
      }
    } finally {
      batching = false;
    }
    DiscoveryDiff diff = DiscoveryDiff.between(before, new ArrayList<>(knownRecords().values()));
    for (DiscoveryRecord r : diff.upserted()) {
      emit(r.key(), l -> l.onUpserted(r));
    }
    for (DiscoveryKey k : diff.removed()) {
      emit(k, l -> l.onRemoved(k));
    }
  }

  private Map<DiscoveryKey, DiscoveryRecord> knownRecords() {
    Map<DiscoveryKey, DiscoveryRecord> out = new HashMap<>();
    for (Map.Entry<DiscoveryKey, Live> e : live.entrySet()) {
      out.put(e.getKey(), e.getValue().record);
    }
    return out;
  }

  private void rescan(DiscoveryKind kind) {
    Path dir = root.resolve(kind.bucket());
    ensureWatched(kind, dir);
    Set<Path> seen = new HashSet<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path file : entries) {
        if (KeyFileNames.isTemporary(file.getFileName().toString())) {
          continue;
        }
        seen.add(file);
        refreshFile(file, kind);
      }
    } catch (NoSuchFileException e) {
      // the bucket is gone: so is everything in it
    } catch (IOException e) {
      readErrors.incrementAndGet();
      LOG.warn("file discovery: cannot list {}; keeping what is known of it: {}", dir, e.toString());
      return;
    }
    List<Path> vanished = new ArrayList<>();
    for (Live l : live.values()) {
      if (l.record.key().kind() == kind && !seen.contains(l.file)) {
        vanished.add(l.file);
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

  private void ensureWatched(DiscoveryKind kind, Path dir) {
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        if (unusableDirs.add(dir)) {
          readErrors.incrementAndGet();
          LOG.warn("file discovery: bucket directory {} is missing and cannot be created: {}", dir, e.toString());
        }
        return;
      }
    }
    unusableDirs.remove(dir);
    if (watchService == null || watchedKinds.contains(kind)) {
      return;
    }
    try {
      WatchKey key = dir.register(watchService, ENTRY_CREATE, ENTRY_DELETE, ENTRY_MODIFY);
      watchKeys.put(key, kind);
      watchedKinds.add(kind);
    } catch (ClosedWatchServiceException e) {
      // closing
    } catch (IOException e) {
      readErrors.incrementAndGet();
      LOG.warn("file discovery: cannot watch {}; relying on rescans: {}", dir, e.toString());
    }
  }

  /** Reads the current state of one file and applies it. */
  private void refreshFile(Path file, DiscoveryKind kind) {
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
    Live current = live.get(key);
    if (!attributes.isRegularFile()) {
      markBad(file, key, "not a regular file", new DiscoveryDecodeException(
          DiscoveryDecodeException.Reason.INVALID_PATH, "", key.storageKey(),
          "the entry " + file + " is not a regular file", null), version);
      return;
    }
    if (current != null && current.file.equals(file) && current.version.equals(version)) {
      return;
    }
    Bad reported = bad.get(file);
    if (reported != null && reported.version.equals(version)) {
      return;
    }
    if (attributes.size() > MAX_FILE_BYTES) {
      markBad(file, key, "size " + attributes.size() + " " + version.fileKey(), new DiscoveryDecodeException(
          DiscoveryDecodeException.Reason.INVALID_VALUE, "", key.storageKey(),
          "the file has " + attributes.size() + " bytes, more than the limit of " + MAX_FILE_BYTES, null), version);
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
    live.put(key, new Live(file, record, version));
    liveRecords.set(live.size());
    if (current == null || !current.record.equals(record)) {
      emit(key, l -> l.onUpserted(record));
    }
  }

  /**
   * Records a bad file: counted, logged and reported once per version (same identity: only its mtime is
   * followed, so that a record kept for its key stays alive while the bad file is refreshed).
   */
  private void markBad(Path file, @Nullable DiscoveryKey key, Object identity, DiscoveryException error,
      FileVersion version) {
    if (key != null) {
      Live kept = live.get(key);
      if (kept != null && kept.file.equals(file)) {
        kept.version = version;
      }
    }
    Bad previous = bad.get(file);
    if (previous != null && previous.identity.equals(identity)) {
      previous.version = version;
      return;
    }
    bad.put(file, new Bad(identity, error, version));
    badFiles.incrementAndGet();
    LOG.warn("file discovery: skipped bad file {}: {}", file, error.getMessage());
    for (FileWatch w : watches) {
      w.post(l -> l.onError(error));
    }
  }

  private void readError(Path file, IOException e) {
    if (!unreadable.add(file)) {
      return;
    }
    readErrors.incrementAndGet();
    LOG.warn("file discovery: cannot read {}: {}", file, e.toString());
    DiscoveryException error = new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE,
        "cannot read " + file + ": " + e.getMessage(), e);
    for (FileWatch w : watches) {
      w.post(l -> l.onError(error));
    }
  }

  /** The file is absent or expired: forget it, and remove its record if it was the one known for its key. */
  private void gone(Path file, DiscoveryKind kind, boolean byExpiry) {
    bad.remove(file);
    unreadable.remove(file);
    DiscoveryKey key;
    try {
      key = DiscoveryKey.parse(kind, KeyFileNames.decode(file.getFileName().toString()));
    } catch (DiscoveryDecodeException e) {
      return;
    }
    Live current = live.get(key);
    if (current == null || !current.file.equals(file)) {
      return;
    }
    live.remove(key);
    liveRecords.set(live.size());
    if (byExpiry) {
      expired.incrementAndGet();
      LOG.info("file discovery: {} expired (mtime {} older than the {} TTL)", key.storageKey(),
          current.version.mtime(), ttl);
    }
    emit(key, l -> l.onRemoved(key));
  }

  private void emit(DiscoveryKey key, Consumer<DiscoveryListener> call) {
    if (batching) {
      return; // the rescan reports its diff at the end
    }
    for (Iterator<FileWatch> it = watches.iterator(); it.hasNext(); ) {
      FileWatch w = it.next();
      if (w.scope().matches(key)) {
        w.post(call);
      }
    }
  }
}
