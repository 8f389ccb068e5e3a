package dev.kvrelay.spi.discovery.sources;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (polls are serialised by one lock; the status is published through a volatile field): the sources
 * file poller ({@code producer.md} §8.2). Each {@link #pollOnce()} reads the file (at most {@value
 * SourcesDocument#MAX_BYTES} + 1 bytes, within the read timeout) and validates it with {@link
 * SourcesDocument#parse}. A valid document whose revision differs from the applied one is handed to the {@link
 * SourcesListener}; an invalid one changes nothing applied, sets {@code desiredRevision} to null and {@code
 * lastError} to the typed failure; the next valid poll clears the error.
 *
 * <p>{@link #start()} polls every interval (1 s by default) on a daemon thread, the first poll at once; tests call
 * {@link #pollOnce()} themselves and inject the clock the status is stamped with.
 */
public final class SourcesFilePoller implements AutoCloseable {
  /** Upstream's poll interval. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
  /** Upstream's read timeout. */
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);
  /** How long startup waits for a first valid document (upstream: 10 s). */
  public static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(SourcesFilePoller.class);
  private static final AtomicLong IDS = new AtomicLong();

  private final Path file;
  private final @Nullable String connectionRevision;
  private final SourcesListener listener;
  private final Duration interval;
  private final Duration readTimeout;
  private final Clock clock;
  private final String name;
  private final ExecutorService reader;
  private final Object pollLock = new Object();
  private @Nullable ScheduledExecutorService timer;
  private @Nullable Future<byte[]> pendingRead;
  private @Nullable SourcesDocument applied;
  private volatile SourcesStatus status = SourcesStatus.INITIAL;
  private volatile boolean closed;

  /** Not thread-safe: confined to the thread that builds the poller; its options. */
  public static final class Builder {
    private final Path file;
    private final SourcesListener listener;
    private @Nullable String connectionRevision;
    private Duration interval = DEFAULT_INTERVAL;
    private Duration readTimeout = DEFAULT_READ_TIMEOUT;
    private Clock clock = Clock.systemUTC();

    private Builder(Path file, SourcesListener listener) {
      this.file = Objects.requireNonNull(file, "file");
      this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** The running Relay's {@code DYN_RELAY_CONNECTION_REVISION} (default none). */
    public Builder connectionRevision(@Nullable String connectionRevision) {
      this.connectionRevision = connectionRevision;
      return this;
    }

    /** The poll interval (default 1 s). */
    public Builder interval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("poll interval must be positive");
      }
      this.interval = interval;
      return this;
    }

    /** The read timeout (default 10 s). */
    public Builder readTimeout(Duration readTimeout) {
      if (readTimeout.isNegative() || readTimeout.isZero()) {
        throw new IllegalArgumentException("read timeout must be positive");
      }
      this.readTimeout = readTimeout;
      return this;
    }

    /** The clock the status is stamped with (default the system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** A poller that has not polled yet. */
    public SourcesFilePoller build() {
      return new SourcesFilePoller(this);
    }
  }

  /** Options for polling {@code file}, handing changes to {@code listener}. */
  public static Builder builder(Path file, SourcesListener listener) {
    return new Builder(file, listener);
  }

  private SourcesFilePoller(Builder b) {
    this.file = b.file;
    this.connectionRevision = b.connectionRevision;
    this.listener = b.listener;
    this.interval = b.interval;
    this.readTimeout = b.readTimeout;
    this.clock = b.clock;
    this.name = "kvrelay-sources-file-" + IDS.incrementAndGet();
    this.reader = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name + "-reader");
      t.setDaemon(true);
      return t;
    });
  }

  /** The current status. */
  public SourcesStatus status() {
    return status;
  }

  /** The sources last applied, or {@code null}. */
  public @Nullable SourcesDocument applied() {
    synchronized (pollLock) {
      return applied;
    }
  }

  /**
   * Reads and validates the file once; hands a changed valid document to the listener.
   *
   * @return the document read, or {@code null} if the poll failed (see {@link #status()})
   */
  public @Nullable SourcesDocument pollOnce() {
    synchronized (pollLock) {
      if (closed) {
        return null;
      }
      SourcesDocument doc;
      try {
        doc = SourcesDocument.parse(read(), connectionRevision);
      } catch (SourcesException e) {
        status = new SourcesStatus(null, revisionOf(applied), countOf(applied), e, clock.instant());
        return null;
      }
      if (applied == null || !applied.revision().equals(doc.revision())) {
        try {
          listener.onSources(doc);
          applied = doc;
        } catch (Exception e) {
          status = new SourcesStatus(doc.revision(), revisionOf(applied), countOf(applied),
              new SourcesException(SourcesException.Reason.APPLY_FAILED, "", e), clock.instant());
          return doc;
        }
      }
      status = new SourcesStatus(doc.revision(), revisionOf(applied), countOf(applied), null, clock.instant());
      return doc;
    }
  }

  /**
   * Polls until a document is applied, at most {@code timeout} ({@link #STARTUP_TIMEOUT} at startup), every
   * interval.
   *
   * @throws SourcesException the last failure if none was applied in time
   */
  public SourcesDocument awaitFirst(Duration timeout) throws SourcesException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      pollOnce();
      SourcesDocument doc = applied();
      if (doc != null) {
        return doc;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || closed) {
        SourcesException last = status.lastError();
        throw last != null ? last : new SourcesException(SourcesException.Reason.UNAVAILABLE);
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(left, interval.toNanos()));
    }
  }

  /** Starts polling every interval on a daemon thread (the first poll at once). Idempotent. */
  public synchronized void start() {
    if (timer != null || closed) {
      return;
    }
    ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread th = new Thread(r, name + "-poll");
      th.setDaemon(true);
      return th;
    });
    // The future is not needed: a poll records its failures in status(), pollScheduled() logs anything else (so
    // an unexpected exception does not silently end the polling), and close() ends the task.
    ScheduledFuture<?> unused =
        t.scheduleWithFixedDelay(this::pollScheduled, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    timer = t;
  }

  private void pollScheduled() {
    try {
      pollOnce();
    } catch (RuntimeException e) {
      LOG.warn("sources file poll of {} failed unexpectedly; polling goes on", file, e);
    }
  }

  /** Stops polling. Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    if (timer != null) {
      timer.shutdownNow();
    }
    reader.shutdownNow();
  }

  private byte[] read() throws SourcesException {
    Future<byte[]> read = pendingRead;
    if (read == null) {
      read = reader.submit(() -> readBounded(file));
      pendingRead = read;
    }
    try {
      byte[] bytes = read.get(readTimeout.toNanos(), TimeUnit.NANOSECONDS);
      pendingRead = null;
      return bytes;
    } catch (TimeoutException e) {
      // the read stays pending: the next poll waits for it again instead of piling up readers
      throw new SourcesException(SourcesException.Reason.READ_TIMEOUT);
    } catch (ExecutionException e) {
      pendingRead = null;
      if (e.getCause() instanceof SourcesException) {
        throw (SourcesException) e.getCause();
      }
      throw new SourcesException(SourcesException.Reason.READ_FAILED, "", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SourcesException(SourcesException.Reason.READ_FAILED, "", e);
    }
  }

  private static byte[] readBounded(Path file) throws SourcesException {
    InputStream in;
    try {
      in = Files.newInputStream(file);
    } catch (IOException e) {
      throw new SourcesException(SourcesException.Reason.UNAVAILABLE, "", e);
    }
    try (InputStream s = in) {
      byte[] bytes = s.readNBytes(SourcesDocument.MAX_BYTES + 1);
      if (bytes.length > SourcesDocument.MAX_BYTES) {
        throw new SourcesException(SourcesException.Reason.SIZE_LIMIT);
      }
      return bytes;
    } catch (IOException e) {
      throw new SourcesException(SourcesException.Reason.READ_FAILED, "", e);
    }
  }

  private static @Nullable String revisionOf(@Nullable SourcesDocument d) {
    return d == null ? null : d.revision();
  }

  private static int countOf(@Nullable SourcesDocument d) {
    return d == null ? 0 : d.namespaces().size();
  }
}
