package dev.kvrelay.discovery.file;

import dev.kvrelay.api.json.JsonLimits;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchService;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
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
 * snapshot, diffed with {@link DiscoveryDiff} into upserts and removals; expiry by mtime is also checked at each
 * known file's deadline. Each watch delivers on its own thread, in the order the scanner saw the changes. A bad file (a name that is no key,
 * invalid JSON, a value that does not match its key, not a regular file, too large) is counted once per version,
 * logged, reported through {@link DiscoveryListener#onError}, and changes nothing: a record already known for the
 * key stays until its file is deleted, expires or becomes valid.
 *
 * <p>Model-card taint changes arrive as {@link DiscoveryListener#onUpserted} of the rewritten card. {@link
 * #register()} publishes the relay's own records into the same tree ({@link FileKvRegistration}).
 *
 * <p>A background failure is counted in {@link #stats()} as well as logged: an unreadable file or directory
 * ({@code readErrors}), a file-event watch that ended or failed ({@code watchFailures}), a scanner step that
 * threw ({@code scannerFailures}), a listener that threw ({@code listenerFailures}); the backend goes on. This
 * class is the lifecycle and the API; the work is done by {@code FileScanner} (the scanner thread and its
 * rescans), {@code KnownFiles} (reading and validating files into the known state), {@code BucketWatches} (the
 * {@link WatchService} and its event thread) and {@code FileCounters}.
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
  private final Clock clock;
  private final String name;
  private final FileCounters counters = new FileCounters();
  private final FileScanner scanner;
  private final List<FileKvRegistration> registrations = new CopyOnWriteArrayList<>();
  private final Object lifecycle = new Object();
  private volatile boolean closed;

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
    this.clock = clock;
    this.name = "kvrelay-file-discovery-" + IDS.incrementAndGet();
    this.scanner = new FileScanner(root, ttl, clock, watchService, name, counters, () -> closed);
    LOG.info("file discovery: watching {} (TTL {}, rescan every {} ms, file events {})", root, ttl,
        TimeUnit.NANOSECONDS.toMillis(scanner.rescanPeriodNanos()), scanner.fileEvents() ? "on" : "off");
    scanner.start();
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
    return counters.snapshot();
  }

  @Override
  public DiscoveryWatch watch(DiscoveryScope scope, DiscoveryListener listener) throws DiscoveryException {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(listener, "listener");
    if (closed) {
      throw closedException();
    }
    FileWatch watch = new FileWatch(scope, listener, name + "-watch-" + IDS.incrementAndGet(), scanner::removeWatch,
        counters.listenerFailures);
    CompletableFuture<Void> started = new CompletableFuture<>();
    scanner.startWatch(watch, started, FileDiscovery::closedException);
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
    scanner.stop(TimeUnit.SECONDS.toMillis(10));
    for (FileWatch w : scanner.watches()) {
      w.close();
    }
    for (FileKvRegistration r : new ArrayList<>(registrations)) {
      r.close();
    }
    scanner.closeFileEvents();
    LOG.info("file discovery: closed {}", root);
  }

  private static DiscoveryException closedException() {
    return new DiscoveryException(DiscoveryException.Kind.CLOSED, "file discovery is closed");
  }

  // ---- test hooks (run on the scanner thread) ----

  /** Runs a full rescan on the scanner thread and waits for it (tests with an injected clock). */
  void rescanNow() throws InterruptedException {
    scanner.rescanNow();
  }

  /**
   * Blocks the scanner, and the event pump after the key it may be taking, until the returned handle is closed;
   * events then pile up in the JDK's watch keys (tests that make them overflow).
   */
  AutoCloseable pauseScanner() throws InterruptedException {
    return scanner.pause();
  }
}
