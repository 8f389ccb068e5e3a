package dev.kvrelay.discovery.file;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_DELETE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;
import static java.nio.file.StandardWatchEventKinds.OVERFLOW;

import dev.kvrelay.spi.discovery.DiscoveryKind;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe as documented per method: the file-event side of one {@link FileDiscovery} — its optional {@link
 * WatchService}, the event pump thread that hands each signalled key to the scanner, and the bucket directories'
 * watch registrations, which (with {@link #ensureBucket} and {@link #changes}) are confined to the scanner thread.
 * A failure of the pump thread is counted in {@code watchFailures}; the rescans then carry on alone.
 */
final class BucketWatches {
  /** Logged under the backend's name, as before this class was split out of it. */
  private static final Logger LOG = LoggerFactory.getLogger(FileDiscovery.class);

  /** Thread-safe: where the pump thread hands a signalled key's events (to be queued for the scanner). */
  @FunctionalInterface
  interface Forward {
    void events(WatchKey key, List<WatchEvent<?>> events, boolean valid);
  }

  /**
   * Immutable and thread-safe: what one signalled key asks of the scanner — re-read the touched files, or, after
   * an overflow or once the watch ended, rescan everything.
   */
  record Changes(DiscoveryKind kind, Path dir, Set<Path> touched, boolean overflow, boolean ended) {}

  private final @Nullable WatchService watchService;
  private final @Nullable Thread pump;
  private final FileCounters counters;
  private final Forward forward;
  private volatile boolean closing;
  private volatile @Nullable CountDownLatch gate;

  // ---- confined to the scanner thread ----
  private final Map<WatchKey, DiscoveryKind> watchKeys = new HashMap<>();
  private final EnumSet<DiscoveryKind> watchedKinds = EnumSet.noneOf(DiscoveryKind.class);
  private final Set<Path> unusableDirs = new HashSet<>();

  BucketWatches(@Nullable WatchService watchService, String threadName, FileCounters counters, Forward forward) {
    this.watchService = watchService;
    this.counters = counters;
    this.forward = forward;
    if (watchService != null) {
      this.pump = new Thread(() -> pumpEvents(watchService), threadName);
      this.pump.setDaemon(true);
    } else {
      this.pump = null;
    }
  }

  /** Whether file events are used at all. Any thread. */
  boolean enabled() {
    return watchService != null;
  }

  /** Starts the pump thread, if there is a watch service. Called once, by the opening thread. */
  void start() {
    if (pump != null) {
      pump.start();
    }
  }

  /**
   * Holds the pump before its next key until {@code resume} is counted down, or lets it run ({@code null}). Any
   * thread (a test hook).
   */
  void gate(@Nullable CountDownLatch resume) {
    this.gate = resume;
  }

  /** Closes the watch service, which ends the pump thread; not counted as a failure. Any thread. */
  void close() {
    closing = true;
    if (watchService != null) {
      try {
        watchService.close();
      } catch (IOException e) {
        LOG.warn("file discovery: closing the watch service failed", e);
      }
    }
  }

  // ---- the event pump thread ----

  private void pumpEvents(WatchService ws) {
    try {
      while (true) {
        WatchKey key;
        try {
          CountDownLatch g = gate;
          if (g != null) {
            g.await();
          }
          key = ws.take();
        } catch (InterruptedException e) {
          return;
        }
        List<WatchEvent<?>> events = key.pollEvents();
        boolean valid = key.reset();
        forward.events(key, events, valid);
      }
    } catch (ClosedWatchServiceException e) {
      if (!closing) {
        counters.watchFailures.incrementAndGet();
        LOG.warn("file discovery: the watch service closed under the event thread; relying on rescans");
      }
    } catch (RuntimeException e) {
      counters.watchFailures.incrementAndGet();
      LOG.error("file discovery: the event thread failed; relying on rescans", e);
    }
  }

  // ---- the scanner thread ----

  /**
   * Creates the bucket directory if it is missing (counting, once until it is usable again, that it cannot be),
   * and registers it with the watch service unless it is watched already (counting a failure in {@code
   * readErrors}; rescans then cover it).
   */
  void ensureBucket(DiscoveryKind kind, Path dir) {
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        if (unusableDirs.add(dir)) {
          counters.readErrors.incrementAndGet();
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
      counters.readErrors.incrementAndGet();
      LOG.warn("file discovery: cannot watch {}; relying on rescans: {}", dir, e.toString());
    }
  }

  /**
   * What a signalled key's events mean, counting them in {@code watchEvents}; {@code null} for a key this
   * backend no longer follows. A key that is no longer valid is forgotten, so the next rescan watches its
   * directory again.
   */
  @Nullable Changes changes(WatchKey key, List<WatchEvent<?>> events, boolean valid) {
    DiscoveryKind kind = watchKeys.get(key);
    if (kind == null) {
      return null;
    }
    Path dir = (Path) key.watchable();
    boolean overflow = false;
    Set<Path> touched = new LinkedHashSet<>();
    for (WatchEvent<?> e : events) {
      counters.watchEvents.incrementAndGet();
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
    }
    return new Changes(kind, dir, Collections.unmodifiableSet(touched), overflow, !valid);
  }
}
