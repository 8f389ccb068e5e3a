package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.ckf.cbi1.AssembledSnapshot;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException;
import dev.kvrelay.ckf.cbi1.Cbi1Decoder;
import dev.kvrelay.ckf.cbi1.SnapshotAssembly;
import dev.kvrelay.ckf.producer.CkfProducerStats;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (the in-flight bound is a semaphore; each read is confined to its calling thread): the
 * {@code snapshot} answer (producer.md §7.5): one active pool's raw CKF buckets, read through the engine's public
 * pool subscription (the published snapshot at its sequence, decoded with the project's CBI1 decoder), so the words
 * and the sequence are one consistent state. A read holds one pool-stream admission permit for its duration
 * (subscriber id {@code kvrelay-diagnostics-snapshot-<n>}); at most {@value #MAX_IN_FLIGHT} run at once.
 *
 * <pre>{@code
 * {"drt_instance_id","relay_incarnation","dc_id","serving_endpoint":"ns.comp.ep","layout_generation","sequence",
 *  "member_count","contribution_count","unique_block_count","counts_sequence","format_version","seed",
 *  "bucket_count","fingerprint_bits","slots_per_bucket","buckets":[u64, …]}
 * }</pre>
 *
 * <p>The three counts are read from the pool's stats right after the snapshot, at publication sequence
 * {@code counts_sequence} (upstream reads them with the words; the engine API gives them separately).
 */
final class PoolSnapshots {
  static final int MAX_IN_FLIGHT = 2;
  /** Upper bound of one bucket's JSON text: 20 digits and a comma. */
  private static final int BYTES_PER_BUCKET = 21;
  private final RelayEngine engine;
  private final Duration timeout;
  private final int maxAnswerBytes;
  private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
  private final AtomicLong reads = new AtomicLong();

  PoolSnapshots(RelayEngine engine, Duration timeout, int maxAnswerBytes) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.maxAnswerBytes = maxAnswerBytes;
  }

  /** The request's {@code serving_endpoint} text, checked as upstream does (producer.md §7.5). */
  static String servingEndpoint(JsonValue request) throws DiagnosticRequestException {
    if (!(request instanceof JsonObject o)) {
      throw new DiagnosticRequestException(DiagnosticRequestException.Kind.MALFORMED_REQUEST,
          "snapshot request must be a JSON object, got " + request.typeName());
    }
    JsonValue v = o.get("serving_endpoint");
    if (v == null || v instanceof dev.kvrelay.api.json.JsonNull
        || (v instanceof dev.kvrelay.api.json.JsonString s && s.value().isEmpty())) {
      throw new DiagnosticRequestException(DiagnosticRequestException.Kind.MISSING_SERVING_ENDPOINT,
          "snapshot requests require serving_endpoint");
    }
    if (!(v instanceof dev.kvrelay.api.json.JsonString s)) {
      throw new DiagnosticRequestException(DiagnosticRequestException.Kind.MALFORMED_REQUEST,
          "serving_endpoint must be a string \"ns.comp.ep\", got " + v.typeName());
    }
    return s.value();
  }

  /**
   * The active pool named {@code text}: the dotted form {@code ns.comp.ep} (matched against each pool's dotted
   * name) or the path form {@code ns/comp/ep} (producer.md §7.5 decision: display dotted, parse both).
   */
  KvPoolDescriptor resolve(String text) throws DiagnosticRequestException {
    List<KvPoolDescriptor> matches = new ArrayList<>();
    DynamoEndpointId path = null;
    if (text.indexOf('/') >= 0) {
      try {
        path = DynamoEndpointId.parse(text);
      } catch (WireValidationException e) {
        throw new DiagnosticRequestException(DiagnosticRequestException.Kind.MALFORMED_REQUEST,
            "serving_endpoint '" + text + "' is not ns.comp.ep or ns/comp/ep: " + e.getMessage());
      }
    }
    for (KvPoolDescriptor d : engine.catalog().pools()) {
      boolean hit = path != null ? d.servingEndpoint().equals(path) : d.servingEndpoint().dottedName().equals(text);
      if (hit) {
        matches.add(d);
      }
    }
    if (matches.isEmpty()) {
      throw new DiagnosticRequestException(DiagnosticRequestException.Kind.UNKNOWN_ENDPOINT,
          "unknown or inactive serving endpoint " + text);
    }
    if (matches.size() > 1) {
      throw new DiagnosticRequestException(DiagnosticRequestException.Kind.AMBIGUOUS_ENDPOINT,
          "serving endpoint " + text + " names " + matches.size() + " pools; use the path form ns/comp/ep");
    }
    return matches.get(0);
  }

  /** The snapshot answer for the pool named by {@code request}. */
  JsonObject read(JsonValue request) throws DiagnosticRequestException, InterruptedException {
    KvPoolDescriptor d = resolve(servingEndpoint(request));
    long bound = (long) d.producer().ckfFormat().bucketCount() * BYTES_PER_BUCKET + 1024;
    if (bound > maxAnswerBytes) {
      throw tooLarge(d, bound);
    }
    if (!inFlight.tryAcquire()) {
      throw new DiagnosticRequestException(DiagnosticRequestException.Kind.BUSY,
          MAX_IN_FLIGHT + " snapshot requests are already in progress; retry later");
    }
    try {
      Snapshot s = assemble(d);
      return answer(d, s);
    } finally {
      inFlight.release();
    }
  }

  private DiagnosticRequestException tooLarge(KvPoolDescriptor d, long bytes) {
    return new DiagnosticRequestException(DiagnosticRequestException.Kind.TOO_LARGE, "snapshot of "
        + d.servingEndpoint().dottedName() + " (" + d.producer().ckfFormat().bucketCount() + " buckets, up to " + bytes
        + " bytes) exceeds the request plane's message limit of " + maxAnswerBytes + " bytes");
  }

  /** Immutable (the words are handed over, never written again): one assembled snapshot at {@code sequence}. */
  private static final class Snapshot {
    final long sequence;
    final long[] words;

    Snapshot(long sequence, long[] words) {
      this.sequence = sequence;
      this.words = words;
    }
  }

  private Snapshot assemble(KvPoolDescriptor d) throws DiagnosticRequestException, InterruptedException {
    String subscriber = "kvrelay-diagnostics-snapshot-" + reads.incrementAndGet();
    long deadline = System.nanoTime() + timeout.toNanos();
    RelayStream<PoolFrame> stream;
    try {
      stream = WireSources.of(engine).subscribePool(d.poolId(), d.producer(), subscriber).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause() == null ? e : e.getCause();
      throw unavailable(d, c instanceof RelayException re ? re.reason() + ": " + re.getMessage() : c.toString());
    } catch (TimeoutException e) {
      throw unavailable(d, "the pool subscription did not open within " + timeout);
    }
    try {
      CkfFormat format = d.producer().ckfFormat();
      SnapshotAssembly assembly = new SnapshotAssembly(format);
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw unavailable(d, "the snapshot did not arrive within " + timeout);
        }
        PoolFrame f;
        try {
          f = stream.poll(left, TimeUnit.NANOSECONDS);
        } catch (RelayException e) {
          throw unavailable(d, "the pool stream ended: " + e.reason() + ": " + e.getMessage());
        }
        if (f == null) {
          if (stream.isFinished()) {
            throw unavailable(d, "the pool stream ended before its snapshot");
          }
          continue;
        }
        if (f.kind() != PoolFrame.Kind.SNAPSHOT_CHUNK) {
          throw unavailable(d, "the pool stream sent " + f + " before its snapshot was complete");
        }
        Optional<AssembledSnapshot> done;
        try {
          done = assembly.accept(Cbi1Decoder.decode(format, f.payload()));
        } catch (Cbi1DecodeException e) {
          throw unavailable(d, "a snapshot chunk did not decode: " + e.getMessage());
        }
        if (done.isPresent()) {
          return new Snapshot(f.sequence(), done.get().words());
        }
      }
    } finally {
      stream.close();
    }
  }

  private static DiagnosticRequestException unavailable(KvPoolDescriptor d, String why) {
    return new DiagnosticRequestException(DiagnosticRequestException.Kind.SNAPSHOT_UNAVAILABLE,
        "snapshot of " + d.servingEndpoint().dottedName() + " unavailable: " + why);
  }

  private JsonObject answer(KvPoolDescriptor d, Snapshot s) {
    @Nullable CkfProducerStats counts = null;
    for (PoolStats p : engine.stats().pools()) {
      PoolStats.Actor a = p.actor();
      if (p.descriptor().producer().equals(d.producer()) && a != null) {
        counts = a.producer();
      }
    }
    CkfFormat f = d.producer().ckfFormat();
    List<JsonValue> buckets = new ArrayList<>(s.words.length);
    for (long w : s.words) {
      buckets.add(JsonNumber.ofUnsigned(w));
    }
    return JsonObject.builder()
        .put("drt_instance_id", JsonNumber.ofUnsigned(engine.identity().drtInstanceId()))
        .put("relay_incarnation", JsonNumber.ofUnsigned(engine.identity().relayIncarnation()))
        .put("dc_id", engine.config().dcName())
        .put("serving_endpoint", d.servingEndpoint().dottedName())
        .put("layout_generation", JsonNumber.ofUnsigned(d.producer().layoutGeneration()))
        .put("sequence", JsonNumber.ofUnsigned(s.sequence))
        .put("member_count", count(counts == null ? null : counts.members()))
        .put("contribution_count", count(counts == null ? null : counts.mappings()))
        .put("unique_block_count", count(counts == null ? null : counts.uniqueCanonicalHashes()))
        .put("counts_sequence", count(counts == null ? null : counts.lastSequence()))
        .put("format_version", JsonNumber.of(f.formatVersion()))
        .put("seed", JsonNumber.ofUnsigned(f.seed()))
        .put("bucket_count", JsonNumber.of(f.bucketCount()))
        .put("fingerprint_bits", JsonNumber.of(f.fingerprintBits()))
        .put("slots_per_bucket", JsonNumber.of(f.slotsPerBucket()))
        .put("buckets", new JsonArray(buckets))
        .build();
  }

  private static JsonValue count(@Nullable Long v) {
    return v == null ? dev.kvrelay.api.json.JsonNull.INSTANCE : JsonNumber.ofUnsigned(v);
  }
}
