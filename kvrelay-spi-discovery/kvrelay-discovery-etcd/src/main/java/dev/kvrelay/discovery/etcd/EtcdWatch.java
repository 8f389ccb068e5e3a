package dev.kvrelay.discovery.etcd;

import dev.kvrelay.api.EventSegments;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.QueuedDiscoveryWatch;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: one etcd discovery watch. Everything it knows (streams, resume revisions, the records it
 * delivered) is confined to its own single delivery thread (the SPI's shared {@link QueuedDiscoveryWatch}
 * delivery); jetcd callbacks only enqueue work there.
 *
 * <p>Algorithm ({@code runtime-inputs.md} §2.1–§2.2, {@code plugins-wire.md} §6): GET every prefix of the
 * scope at one revision R (the snapshot), then WATCH each prefix from R + 1. Prefixes end with {@code /},
 * so {@code ns/component} never matches {@code ns/component2}. A stream that errors is re-opened from the
 * revision after the last one seen on it (etcd replays what happened meanwhile), with a backoff of 0.5 s
 * doubling to 5 s. A watch the server cancels — its revision was compacted, or any other cancel reason — is
 * answered with a full GET at a new revision and {@link DiscoveryListener#onResync}; upstream's watcher does
 * not handle compaction, this stricter behaviour is a Java-side choice. A DELETE carries no value: the
 * removed key is parsed from the etcd key itself.
 */
final class EtcdWatch extends QueuedDiscoveryWatch {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdWatch.class);
  private static final long INITIAL_BACKOFF_MS = 500;
  private static final long MAX_BACKOFF_MS = 5_000;
  private static final int PAGE = 1_000;

  /** Confined to the delivery thread: one jetcd watcher over one prefix; identity tells stale callbacks apart. */
  private static final class Stream {
    final String prefix;
    Watch.@Nullable Watcher watcher;

    Stream(String prefix) {
      this.prefix = prefix;
    }
  }

  /** Immutable: the scope's records at one revision, and the entries skipped as malformed. */
  private record Listing(long revision, List<DiscoveryRecord> records, List<DiscoveryDecodeException> skipped) {}

  private final KV kv;
  private final Watch watchClient;
  private final DiscoveryScope scope;
  private final EtcdCounters counters;
  private final Duration requestTimeout;
  private final Consumer<EtcdWatch> onClose;
  private final List<String> prefixes;

  // ---- confined to the delivery thread ----
  private final Map<String, Stream> streams = new LinkedHashMap<>();
  private final Map<String, Long> nextRevision = new HashMap<>();
  private final Set<String> interrupted = new HashSet<>();
  private Map<DiscoveryKey, DiscoveryRecord> known = new HashMap<>();
  private boolean resyncPending;
  private long backoffMs = INITIAL_BACKOFF_MS;

  EtcdWatch(KV kv, Watch watchClient, DiscoveryScope scope, DiscoveryListener listener, EtcdCounters counters,
      Duration requestTimeout, String threadName, Consumer<EtcdWatch> onClose) {
    super(scope, listener, threadName);
    this.kv = kv;
    this.watchClient = watchClient;
    this.scope = scope;
    this.counters = counters;
    this.requestTimeout = requestTimeout;
    this.onClose = onClose;
    this.prefixes = prefixes(scope);
  }

  /**
   * The etcd key prefixes a scope needs, each ending with {@code /}: the four buckets for watch-all, else
   * each bucket narrowed to each namespace (event paths percent-encode the namespace, §1.3).
   */
  static List<String> prefixes(DiscoveryScope scope) {
    List<String> out = new ArrayList<>();
    for (DiscoveryKind kind : DiscoveryKind.values()) {
      if (scope.isWatchAll()) {
        out.add(kind.bucket() + "/");
        continue;
      }
      for (String ns : scope.namespaces()) {
        boolean event = kind == DiscoveryKind.EVENT_CHANNEL || kind == DiscoveryKind.EVENT_SOURCE;
        out.add(kind.bucket() + (event ? "/namespace/" + EventSegments.encode(ns) : "/" + ns) + "/");
      }
    }
    return List.copyOf(out);
  }

  /**
   * Takes the snapshot and starts the streams; the snapshot is queued for delivery before this returns.
   *
   * @throws DiscoveryException (UNAVAILABLE) if the snapshot GET fails or times out
   */
  void start() throws DiscoveryException {
    Future<?> started = call(() -> {
      Listing listing = list();
      known = index(listing.records());
      deliver(l -> l.onSnapshot(listing.records()));
      reportSkipped(listing.skipped());
      openStreams(listing.revision() + 1);
      LOG.info("etcd discovery watch ({}) started at revision {} with {} records", scope, listing.revision(),
          listing.records().size());
      return null;
    });
    try {
      started.get(requestTimeout.toMillis() * (prefixes.size() + 1), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      close();
      throw unavailable("the initial etcd GET failed", e.getCause());
    } catch (TimeoutException e) {
      close();
      throw unavailable("the initial etcd GET timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw unavailable("interrupted while taking the initial etcd snapshot", e);
    }
  }

  private static DiscoveryException unavailable(String message, @Nullable Throwable cause) {
    String detail = cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage();
    return new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, message + detail, cause);
  }

  // ---- listing ----

  /** GETs every prefix at one revision (the first GET's), page by page. */
  private Listing list() throws Exception {
    long revision = 0;
    List<DiscoveryRecord> records = new ArrayList<>();
    List<DiscoveryDecodeException> skipped = new ArrayList<>();
    for (String prefix : prefixes) {
      ByteSequence end = bytes(prefixEnd(prefix));
      ByteSequence from = bytes(prefix);
      while (true) {
        GetOption.Builder option = GetOption.builder().withRange(end).withLimit(PAGE);
        if (revision != 0) {
          option.withRevision(revision);
        }
        GetResponse page = kv.get(from, option.build()).get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        if (revision == 0) {
          revision = page.getHeader().getRevision();
        }
        KeyValue last = null;
        for (KeyValue entry : page.getKvs()) {
          last = entry;
          try {
            DiscoveryRecord r = decodePut(entry.getKey().toString(StandardCharsets.UTF_8), entry.getValue().getBytes());
            if (scope.matches(r)) {
              records.add(r);
            }
          } catch (DiscoveryDecodeException e) {
            skipped.add(e);
          }
        }
        if (!page.isMore() || last == null) {
          break;
        }
        from = bytes(last.getKey().toString(StandardCharsets.UTF_8) + "\0");
      }
    }
    return new Listing(revision, List.copyOf(records), skipped);
  }

  private static Map<DiscoveryKey, DiscoveryRecord> index(List<DiscoveryRecord> records) {
    Map<DiscoveryKey, DiscoveryRecord> out = new HashMap<>();
    for (DiscoveryRecord r : records) {
      out.put(r.key(), r);
    }
    return out;
  }

  /** Decodes a PUT: the key picks the bucket and path, the value must be that object's JSON. */
  private static DiscoveryRecord decodePut(String storageKey, byte[] value) throws DiscoveryDecodeException {
    DiscoveryKey key = DiscoveryKey.parseStorageKey(storageKey);
    String path = storageKey.substring(key.kind().bucket().length() + 1);
    return DiscoveryCodec.decodeAt(key.kind(), path, value);
  }

  private void reportSkipped(List<DiscoveryDecodeException> skipped) {
    for (DiscoveryDecodeException e : skipped) {
      reportMalformed(e);
    }
  }

  private void reportMalformed(DiscoveryDecodeException e) {
    counters.decodeFailures.increment();
    LOG.warn("etcd discovery skipped a malformed entry ({}): {}", e.reason(), e.getMessage());
    deliver(l -> l.onError(e));
  }

  // ---- streams ----

  /** The revision the stream of {@code prefix} resumes from (set for every prefix before its stream opens). */
  private long nextRevisionOf(String prefix) {
    Long next = nextRevision.get(prefix);
    if (next == null) {
      throw new IllegalStateException("no watch revision for prefix " + prefix);
    }
    return next;
  }

  private void openStreams(long fromRevision) {
    for (String prefix : prefixes) {
      nextRevision.put(prefix, fromRevision);
      openStream(prefix);
    }
  }

  private void openStream(String prefix) {
    Stream stream = new Stream(prefix);
    streams.put(prefix, stream);
    WatchOption option = WatchOption.builder()
        .withRange(bytes(prefixEnd(prefix)))
        .withRevision(nextRevisionOf(prefix))
        .withProgressNotify(true)
        .withCreateNotify(true)
        .build();
    stream.watcher = watchClient.watch(bytes(prefix), option, Watch.listener(
        response -> enqueue(() -> onResponse(stream, response)),
        error -> enqueue(() -> onStreamError(stream, error))));
  }

  private void onResponse(Stream stream, WatchResponse response) {
    if (!isOpen() || streams.get(stream.prefix) != stream) {
      return;
    }
    if (response.isCreatedNotify()) {
      if (interrupted.remove(stream.prefix)) {
        LOG.info("etcd discovery watch on {} re-established from revision {}", stream.prefix,
            nextRevision.get(stream.prefix));
      }
      backoffMs = INITIAL_BACKOFF_MS;
      return;
    }
    long next = nextRevisionOf(stream.prefix);
    List<WatchEvent> events = response.getEvents();
    if (events.isEmpty()) {
      // progress notification: every event up to the header revision has been sent
      nextRevision.put(stream.prefix, Math.max(next, response.getHeader().getRevision() + 1));
      return;
    }
    long last = next - 1;
    for (WatchEvent event : events) {
      long revision = event.getKeyValue().getModRevision();
      if (revision < next) {
        continue; // already applied before the stream was re-opened
      }
      last = Math.max(last, revision);
      apply(event);
    }
    nextRevision.put(stream.prefix, last + 1);
  }

  private void apply(WatchEvent event) {
    String storageKey = event.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
    if (event.getEventType() == WatchEvent.EventType.PUT) {
      DiscoveryRecord record;
      try {
        record = decodePut(storageKey, event.getKeyValue().getValue().getBytes());
      } catch (DiscoveryDecodeException e) {
        reportMalformed(e); // what was known for the key stays as it was
        return;
      }
      if (!scope.matches(record)) {
        return;
      }
      known.put(record.key(), record);
      counters.eventsApplied.increment();
      deliver(l -> l.onUpserted(record));
    } else if (event.getEventType() == WatchEvent.EventType.DELETE) {
      DiscoveryKey key;
      try {
        key = DiscoveryKey.parseStorageKey(storageKey);
      } catch (DiscoveryDecodeException e) {
        reportMalformed(e);
        return;
      }
      if (known.remove(key) != null) {
        counters.eventsApplied.increment();
        deliver(l -> l.onRemoved(key));
      }
    }
  }

  private void onStreamError(Stream stream, Throwable error) {
    if (!isOpen() || streams.get(stream.prefix) != stream) {
      return;
    }
    closeStream(stream);
    if (isServerCancel(error)) {
      boolean compacted = error instanceof CompactedException;
      if (compacted) {
        counters.compactions.increment();
      }
      String why = compacted
          ? "revision " + nextRevision.get(stream.prefix) + " was compacted (compact revision "
              + ((CompactedException) error).getCompactedRevision() + ")"
          : "the server cancelled it (" + error.getMessage() + ")";
      LOG.warn("etcd discovery watch on {} lost: {}; taking a full GET to resync", stream.prefix, why);
      DiscoveryException interruption = new DiscoveryException(DiscoveryException.Kind.WATCH_INTERRUPTED,
          "etcd watch on " + stream.prefix + " lost: " + why + "; resyncing", error);
      deliver(l -> l.onError(interruption));
      scheduleResync();
      return;
    }
    if (interrupted.add(stream.prefix)) {
      counters.streamInterruptions.increment();
      LOG.warn("etcd discovery watch on {} interrupted ({}); resuming from revision {}", stream.prefix,
          error.getMessage(), nextRevision.get(stream.prefix));
    } else {
      LOG.debug("etcd discovery watch on {} still unavailable: {}", stream.prefix, error.getMessage());
    }
    long delay = nextBackoff();
    schedule(() -> {
      if (isOpen() && !resyncPending && !streams.containsKey(stream.prefix)) {
        openStream(stream.prefix);
      }
    }, delay);
  }

  /** A cancel sent by the server (compaction, or any other reason) as opposed to a broken connection. */
  private static boolean isServerCancel(Throwable error) {
    if (error instanceof CompactedException) {
      return true;
    }
    if (error instanceof EtcdException etcdException) {
      ErrorCode code = etcdException.getErrorCode();
      return code == ErrorCode.FAILED_PRECONDITION || code == ErrorCode.OUT_OF_RANGE;
    }
    return false;
  }

  private void scheduleResync() {
    if (resyncPending) {
      return;
    }
    resyncPending = true;
    for (Stream s : List.copyOf(streams.values())) {
      closeStream(s);
    }
    schedule(this::resync, 0);
  }

  private void resync() {
    if (!isOpen()) {
      return;
    }
    Listing listing;
    try {
      listing = list();
    } catch (Exception e) {
      long delay = nextBackoff();
      LOG.warn("etcd discovery resync GET failed ({}); retrying in {} ms", e.getMessage(), delay);
      schedule(this::resync, delay);
      return;
    }
    resyncPending = false;
    backoffMs = INITIAL_BACKOFF_MS;
    DiscoveryDiff diff = DiscoveryDiff.between(known, listing.records());
    known = index(listing.records());
    counters.resyncs.increment();
    LOG.info("etcd discovery watch ({}) resynced at revision {}: {} records, {} upserted, {} removed", scope,
        listing.revision(), listing.records().size(), diff.upserted().size(), diff.removed().size());
    interrupted.clear();
    deliver(l -> l.onResync(listing.records()));
    reportSkipped(listing.skipped());
    openStreams(listing.revision() + 1);
  }

  private void closeStream(Stream stream) {
    streams.remove(stream.prefix, stream);
    Watch.Watcher w = stream.watcher;
    if (w != null) {
      w.close();
    }
  }

  private long nextBackoff() {
    long delay = backoffMs;
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    return delay;
  }

  // ---- lifecycle ----

  @Override
  protected void listenerFailed(RuntimeException e) {
    LOG.warn("discovery listener threw; the callback is dropped and the watch goes on", e);
  }

  @Override
  protected void onClosed() {
    enqueueCleanup(() -> {
      for (Stream s : List.copyOf(streams.values())) {
        closeStream(s);
      }
    });
    onClose.accept(this);
  }

  // ---- bytes ----

  static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }

  /** The first key after every key with this prefix (the prefix ends with an ASCII {@code /}). */
  static String prefixEnd(String prefix) {
    char last = prefix.charAt(prefix.length() - 1);
    return prefix.substring(0, prefix.length() - 1) + (char) (last + 1);
  }
}
