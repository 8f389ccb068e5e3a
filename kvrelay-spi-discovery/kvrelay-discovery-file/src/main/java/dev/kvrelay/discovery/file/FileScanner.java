package dev.kvrelay.discovery.file;

import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (tasks are queued from any thread; all state is confined to its one scanner thread): the polling
 * side of one {@link FileDiscovery}. The scanner runs queued tasks (signalled watch keys, new watches, test
 * hooks), a full rescan of every bucket every TTL/3, after an {@code OVERFLOW} or an ended watch and before each
 * new watch's snapshot, diffed with {@link DiscoveryDiff}, and the expiry check at each known file's deadline; it
 * reports what changed to the watches in the order it saw it. A step that throws is counted in {@code
 * scannerFailures} and the scanner goes on.
 */
final class FileScanner implements KnownFiles.Sink {
  /** Logged under the backend's name, as before this class was split out of it. */
  private static final Logger LOG = LoggerFactory.getLogger(FileDiscovery.class);

  private final Path root;
  private final long rescanPeriodNanos;
  private final FileCounters counters;
  private final BooleanSupplier closed;
  private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
  private final Thread thread;
  private final BucketWatches bucketWatches;
  private final List<FileWatch> watches = new CopyOnWriteArrayList<>();

  // ---- confined to the scanner thread ----
  private final KnownFiles known;
  private boolean batching;

  FileScanner(Path root, Duration ttl, Clock clock, @Nullable WatchService watchService, String name,
      FileCounters counters, BooleanSupplier closed) {
    this.root = root;
    this.rescanPeriodNanos = ttl.toNanos() / 3;
    this.counters = counters;
    this.closed = closed;
    this.known = new KnownFiles(ttl, clock, counters, this);
    this.bucketWatches = new BucketWatches(watchService, name + "-events", counters,
        (key, events, valid) -> inbox.add(() -> onEvents(key, events, valid)));
    this.thread = new Thread(this::run, name + "-scanner");
    this.thread.setDaemon(true);
  }

  /** The rescan period (TTL/3). */
  long rescanPeriodNanos() {
    return rescanPeriodNanos;
  }

  /** Whether file events are used. */
  boolean fileEvents() {
    return bucketWatches.enabled();
  }

  /** Starts the scanner thread, then the event pump. Called once, by the opening thread. */
  void start() {
    thread.start();
    bucketWatches.start();
  }

  /** Queues a task for the scanner thread. Any thread. */
  void submit(Runnable task) {
    inbox.add(task);
  }

  /**
   * Queues the start of {@code watch}: a full rescan, then its snapshot and the current bad files, then it is
   * added to the watches that get changes; {@code started} completes (exceptionally once closed). Any thread.
   */
  void startWatch(FileWatch watch, CompletableFuture<Void> started, Supplier<DiscoveryException> whenClosed) {
    inbox.add(() -> {
      if (closed.getAsBoolean()) {
        started.completeExceptionally(whenClosed.get());
        return;
      }
      rescanAll();
      List<DiscoveryRecord> frozen = known.snapshot(watch.scope());
      watch.post(l -> l.onSnapshot(frozen));
      for (DiscoveryException error : known.badFileErrors()) {
        watch.post(l -> l.onError(error));
      }
      watches.add(watch);
      started.complete(null);
    });
  }

  /** Forgets a closed watch. Any thread. */
  void removeWatch(FileWatch watch) {
    watches.remove(watch);
  }

  /** The open watches, copied. Any thread. */
  List<FileWatch> watches() {
    return new ArrayList<>(watches);
  }

  /**
   * Wakes the scanner so that it sees the backend closed, and waits up to {@code millis} for it to end (unless
   * called on the scanner thread). Any thread.
   */
  void stop(long millis) {
    inbox.add(() -> { });
    if (Thread.currentThread() != thread) {
      try {
        thread.join(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Closes the watch service, which ends the event pump. Any thread. */
  void closeFileEvents() {
    bucketWatches.close();
  }

  // ---- test hooks ----

  /** Runs a full rescan on the scanner thread and waits for it. */
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

  /** Blocks the scanner, and the event pump after the key it may be taking, until the handle is closed. */
  AutoCloseable pause() throws InterruptedException {
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    bucketWatches.gate(resume);
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
      bucketWatches.gate(null);
      resume.countDown();
    };
  }

  // ---- the scanner thread ----

  private void run() {
    long nextRescan = System.nanoTime();
    while (!closed.getAsBoolean()) {
      try {
        long now = System.nanoTime();
        if (now - nextRescan >= 0) {
          rescanAll();
          nextRescan = System.nanoTime() + rescanPeriodNanos;
          now = System.nanoTime();
        }
        long wait = Math.max(0, Math.min(nextRescan - now, known.nanosUntilNextExpiry()));
        Runnable task = inbox.poll(wait, TimeUnit.NANOSECONDS);
        if (task != null) {
          task.run();
          Runnable more;
          while (!closed.getAsBoolean() && (more = inbox.poll()) != null) {
            more.run();
          }
        }
        known.expireDue();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        counters.scannerFailures.incrementAndGet();
        LOG.error("file discovery: scanner step failed; it goes on", e);
      }
    }
  }

  private void onEvents(WatchKey key, List<WatchEvent<?>> events, boolean valid) {
    BucketWatches.Changes changes = bucketWatches.changes(key, events, valid);
    if (changes == null) {
      return;
    }
    if (changes.ended()) {
      counters.watchFailures.incrementAndGet();
      LOG.warn("file discovery: the watch on {} ended (directory removed?); rescanning", changes.dir());
      rescanAll();
      return;
    }
    if (changes.overflow()) {
      counters.overflows.incrementAndGet();
      LOG.warn("file discovery: file events overflowed on {}; rescanning every bucket", changes.dir());
      rescanAll();
      return;
    }
    for (Path file : changes.touched()) {
      known.refresh(file, changes.kind());
    }
  }

  /**
   * Re-reads every bucket directory, then reports the {@link DiscoveryDiff} between the records known before and
   * after (so several changes to one key within a rescan are one upsert or removal).
   */
  private void rescanAll() {
    counters.rescans.incrementAndGet();
    Map<DiscoveryKey, DiscoveryRecord> before = known.records();
    batching = true;
    try {
      for (DiscoveryKind kind : DiscoveryKind.values()) {
        rescan(kind);
      }
    } finally {
      batching = false;
    }
    DiscoveryDiff diff = DiscoveryDiff.between(before, new ArrayList<>(known.records().values()));
    for (DiscoveryRecord r : diff.upserted()) {
      changed(r.key(), l -> l.onUpserted(r));
    }
    for (DiscoveryKey k : diff.removed()) {
      changed(k, l -> l.onRemoved(k));
    }
  }

  private void rescan(DiscoveryKind kind) {
    Path dir = root.resolve(kind.bucket());
    bucketWatches.ensureBucket(kind, dir);
    Set<Path> seen = new HashSet<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path file : entries) {
        if (KeyFileNames.isTemporary(file.getFileName().toString())) {
          continue;
        }
        seen.add(file);
        known.refresh(file, kind);
      }
    } catch (NoSuchFileException e) {
      // the bucket is gone: so is everything in it
    } catch (IOException e) {
      counters.readErrors.incrementAndGet();
      LOG.warn("file discovery: cannot list {}; keeping what is known of it: {}", dir, e.toString());
      return;
    }
    known.keepOnly(kind, dir, seen);
  }

  /** Queues a change for the watches whose scope holds the key, unless a rescan reports its diff at the end. */
  @Override
  public void changed(DiscoveryKey key, Consumer<DiscoveryListener> call) {
    if (batching) {
      return; // the rescan reports its diff at the end
    }
    for (FileWatch w : watches) {
      if (w.scope().matches(key)) {
        w.post(call);
      }
    }
  }

  /** Queues an error for every watch. */
  @Override
  public void error(DiscoveryException error) {
    for (FileWatch w : watches) {
      w.post(l -> l.onError(error));
    }
  }
}
