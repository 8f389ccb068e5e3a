package dev.kvrelay.engine;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.sources.SourcesDocument;
import dev.kvrelay.spi.discovery.sources.SourcesException;
import dev.kvrelay.spi.discovery.sources.SourcesFilePoller;
import dev.kvrelay.spi.discovery.sources.SourcesStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (re-scoping is serialised by the poller's thread and {@code lock}): the file-mode scope source
 * ({@code producer.md} §8.2). A {@link SourcesFilePoller} polls the sources file every second; each valid new document
 * replaces the discovery watch by one over exactly its namespaces (no endpoint prefixes in file mode). The new
 * watch's first state is handed to the engine as a resync, which diffs it against what the engine knows: pools of
 * namespaces in both documents stay untouched, those of dropped namespaces are withdrawn. An invalid document keeps
 * the last applied sources (the poller's status records the error).
 */
final class SourcesScope implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SourcesScope.class);

  private final DiscoveryBackend discovery;
  /** A listener for the next watch: {@code true} = the engine's first watch (snapshot), else a resync. */
  private final Function<Boolean, DiscoveryListener> listeners;
  private final Runnable emptied;
  private final SourcesFilePoller poller;
  private final Object lock = new Object();
  private @Nullable DiscoveryWatch watch;
  private @Nullable DiscoveryScope applied;
  private boolean first = true;
  private boolean closed;

  private SourcesScope(DiscoveryBackend discovery, Path file, @Nullable String connectionRevision,
      Function<Boolean, DiscoveryListener> listeners, Runnable emptied) {
    this.discovery = discovery;
    this.listeners = listeners;
    this.emptied = emptied;
    this.poller = SourcesFilePoller.builder(file, this::apply).connectionRevision(connectionRevision).build();
  }

  /**
   * Waits for a first valid document ({@link SourcesFilePoller#STARTUP_TIMEOUT}), opens its watch, then polls.
   *
   * @param emptied called (instead of a watch) when a document lists no namespace: the engine then drops everything
   * @throws RelayEngineException with the poller's last typed failure if no valid document came in time
   */
  static SourcesScope start(DiscoveryBackend discovery, Path file, @Nullable String connectionRevision,
      Function<Boolean, DiscoveryListener> listeners, Runnable emptied) throws RelayEngineException {
    SourcesScope s = new SourcesScope(discovery, file, connectionRevision, listeners, emptied);
    try {
      s.poller.awaitFirst(SourcesFilePoller.STARTUP_TIMEOUT);
    } catch (SourcesException e) {
      s.close();
      throw new RelayEngineException("sources file " + file + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.close();
      throw new RelayEngineException("interrupted while waiting for the sources file " + file, e);
    }
    s.poller.start();
    return s;
  }

  /** The poller's status: desired / applied revision, count, last error ({@code producer.md} §8.2). */
  SourcesStatus status() {
    return poller.status();
  }

  /** The poller's listener: re-scopes the watch; throwing keeps the previous sources applied. */
  private void apply(SourcesDocument doc) throws DiscoveryException {
    synchronized (lock) {
      if (closed) {
        throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "the relay is stopping");
      }
      List<String> namespaces = List.copyOf(doc.namespaces());
      DiscoveryScope scope = namespaces.isEmpty() ? null : DiscoveryScope.namespaces(namespaces);
      DiscoveryWatch old = watch;
      if (old != null) {
        old.close(); // no callback of the old watch starts after this; what it forwarded is queued before the new one
      }
      watch = null;
      if (scope == null) {
        emptied.run();
      } else {
        try {
          watch = discovery.watch(scope, listeners.apply(first));
        } catch (DiscoveryException e) {
          reopenApplied(e);
          throw e;
        }
      }
      applied = scope;
      first = false;
      LOG.info("sources file revision " + doc.revision() + " applied: " + namespaces.size()
          + " namespace(s)");
    }
  }

  /** The new watch was refused: the last applied scope is watched again (resynced), so the relay keeps serving it. */
  private void reopenApplied(DiscoveryException cause) {
    DiscoveryScope previous = applied;
    LOG.warn("sources file: the discovery watch for the new sources failed (" + cause.getMessage()
        + "); keeping " + (previous == null ? "no namespaces" : previous));
    if (previous == null) {
      return;
    }
    try {
      watch = discovery.watch(previous, listeners.apply(false));
    } catch (DiscoveryException e) {
      LOG.warn("sources file: re-watching " + previous + " failed too: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      poller.close();
      if (watch != null) {
        watch.close();
        watch = null;
      }
    }
  }
}
