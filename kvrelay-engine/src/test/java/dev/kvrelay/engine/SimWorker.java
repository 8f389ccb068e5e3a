package dev.kvrelay.engine;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.ckf.hashing.SequenceHash;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.PublisherFaults;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (every method synchronized): one simulated Dynamo worker with data-parallel ranks. It
 * advertises itself in discovery (model card, endpoint instance, one KV event source per rank), publishes
 * {@code kv-events} and {@code kv_metrics} on the in-memory plane, and answers recovery queries from its true
 * state (tree dumps of the live blocks, event ranges from its log), as a real worker keeps them.
 */
final class SimWorker {
  private final InMemoryDiscovery discovery;
  private final InMemoryEventPlane plane;
  private final InMemoryRequestPlane requests;
  final DynamoEndpointId endpoint;
  final DynamoEndpointId kvStateEndpoint;
  final long workerId;
  final int dpStart;
  final int dpSize;
  final boolean recoverable;
  final String cardBody;
  final @Nullable String loraName;
  private final int blockSize;
  private final TokenBlockHasher hasher;
  private final Map<Integer, Rank> ranks = new LinkedHashMap<>();
  private final ScriptedWorker scripted = new ScriptedWorker();
  private long nextExternal;
  private final List<ModelRecord> adapterCards = new ArrayList<>();

  /** One rank: publisher, event log and live blocks (external id → block), in insertion order. */
  private final class Rank {
    final int dpRank;
    final long publisherId;
    final InMemoryEventPlane.Publisher publisher;
    final InMemoryEventPlane.Publisher loadPublisher;
    final List<RouterEvent> log = new ArrayList<>();
    final LinkedHashMap<Long, Block> live = new LinkedHashMap<>();
    final Map<Long, Long> externalByCanonical = new HashMap<>();
    long nextEventId = 1;

    Rank(int dpRank, long publisherId) {
      this.dpRank = dpRank;
      this.publisherId = publisherId;
      this.publisher = plane.publisher(new EventScope.Endpoint(kvStateEndpoint), EventTopics.KV_EVENTS, publisherId);
      this.loadPublisher = plane.publisher(new EventScope.Endpoint(endpoint), EventTopics.KV_METRICS, publisherId + 1);
    }
  }

  /** A live block: its parent's external id (0 = root), its tokens hash, its canonical hash. */
  record Block(long parentExternal, long tokensHash, long canonical) {}

  SimWorker(InMemoryDiscovery discovery, InMemoryEventPlane plane, InMemoryRequestPlane requests,
      DynamoEndpointId endpoint, long workerId, String cardBody, int dpStart, int dpSize, boolean recoverable,
      @Nullable DynamoEndpointId kvStateEndpoint, int blockSize, @Nullable String loraName) {
    this.discovery = discovery;
    this.plane = plane;
    this.requests = requests;
    this.endpoint = endpoint;
    this.kvStateEndpoint = kvStateEndpoint == null ? endpoint : kvStateEndpoint;
    this.workerId = workerId;
    this.cardBody = cardBody;
    this.dpStart = dpStart;
    this.dpSize = dpSize;
    this.recoverable = recoverable;
    this.blockSize = blockSize;
    this.loraName = loraName;
    try {
      this.hasher = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, blockSize);
    } catch (dev.kvrelay.ckf.hashing.HashingInputException e) {
      throw new AssertionError(e);
    }
    this.nextExternal = workerId * 1_000_003L + 1;
    scripted.otherwiseAnswer(this::answer);
  }

  // ------------------------------------------------------------------ discovery

  /** Registers card, endpoint instance and every rank's event source; starts answering recovery queries. */
  synchronized SimWorker start() {
    discovery.put(card());
    discovery.put(instance());
    for (int r = dpStart; r < dpStart + dpSize; r++) {
      Rank rank = ranks.computeIfAbsent(r, x -> new Rank(x, publisherIdFor(x)));
      discovery.put(source(rank));
    }
    requests.register(workerId, scripted);
    return this;
  }

  /** Also publishes a LoRA adapter card (served name {@code served}, runtime adapter {@code adapter}). */
  synchronized SimWorker adapter(String served, String adapter) {
    ModelRecord r = record(new ModelKey(endpoint, workerId, served),
        "\"display_name\":\"" + served + "\",\"kv_cache_block_size\":" + blockSize
            + ",\"lora\":{\"name\":\"" + adapter + "\",\"max_gpu_lora_count\":4}" + workerTypeOf(cardBody));
    adapterCards.add(r);
    discovery.put(r);
    return this;
  }

  private static String workerTypeOf(String body) {
    int i = body.indexOf("\"worker_type\"");
    if (i < 0) {
      return "";
    }
    int end = body.indexOf(',', i);
    return "," + (end < 0 ? body.substring(i) : body.substring(i, end));
  }

  /** Removes everything this worker advertised (death); recovery queries to it fail from now on. */
  synchronized void die() {
    discovery.remove(card().key());
    for (ModelRecord a : adapterCards) {
      discovery.remove(a.key());
    }
    discovery.remove(new EndpointKey(endpoint, workerId));
    for (Rank rank : ranks.values()) {
      discovery.remove(source(rank).key());
    }
    requests.unregister(workerId);
  }

  /** The worker restarts: a new publisher id per rank, an empty cache and event ids from 1. */
  synchronized void restart() {
    for (Rank rank : ranks.values()) {
      discovery.remove(source(rank).key());
    }
    ranks.clear();
    start();
  }

  /** Publisher ids are random per incarnation in Dynamo and never reused; a counter mixed to 64 bits here. */
  private static final java.util.concurrent.atomic.AtomicLong PUBLISHERS = new java.util.concurrent.atomic.AtomicLong();

  private long publisherIdFor(int rank) {
    long z = PUBLISHERS.incrementAndGet() * 0x9E3779B97F4A7C15L; // distinct counters give distinct ids (bijection)
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  ModelRecord card() {
    return record(new ModelKey(endpoint, workerId, null), cardBody);
  }

  private EndpointRecord instance() {
    return new EndpointRecord(new EndpointKey(endpoint, workerId), new Transport.Tcp("127.0.0.1:9/" + workerId),
        "json", null);
  }

  private EventSourceRecord source(Rank rank) {
    EndpointRecord target = recoverable ? instance() : null;
    return new EventSourceRecord(
        new EventSourceKey(new EventScope.Endpoint(kvStateEndpoint), EventTopics.KV_EVENTS, rank.publisherId),
        new KvEventSource(kvStateEndpoint, workerId, rank.dpRank, rank.publisherId, target));
  }

  static ModelRecord record(ModelKey key, String body) {
    try {
      return ModelRecord.of(key, (JsonObject) Json.parse("{" + body + "}"));
    } catch (Exception e) {
      throw new AssertionError("bad card: " + body, e);
    }
  }

  // ------------------------------------------------------------------ KV events

  /**
   * The worker caches the prompt {@code tokens} on {@code rank}: the blocks it does not hold yet are stored as
   * one event whose parent is the last block it already holds. Returns the canonical hashes of all full blocks.
   */
  synchronized long[] cache(int rank, int[] tokens) {
    long[] sequence = hasher.sequenceHashes(tokens);
    long[] local = hasher.blockHashes(tokens);
    Rank r = ranks.get(rank);
    int have = 0;
    while (have < sequence.length && r.externalByCanonical.containsKey(sequence[have])) {
      have++;
    }
    if (have == sequence.length) {
      return sequence;
    }
    long parentExternal = have == 0 ? 0 : r.externalByCanonical.get(sequence[have - 1]);
    List<StoredBlock> blocks = new ArrayList<>();
    long parent = parentExternal;
    for (int i = have; i < sequence.length; i++) {
      long external = nextExternal++;
      blocks.add(StoredBlock.of(external, local[i]));
      r.live.put(external, new Block(parent, local[i], sequence[i]));
      r.externalByCanonical.put(sequence[i], external);
      parent = external;
    }
    emit(r, new KvEventData.Stored(parentExternal == 0 ? OptionalLong.empty() : OptionalLong.of(parentExternal),
        OptionalLong.empty(), blocks));
    return sequence;
  }

  /** Evicts the deepest {@code n} leaf blocks of {@code rank} (a real cache evicts leaves first). */
  synchronized int evictLeaves(int rank, int n) {
    Rank r = ranks.get(rank);
    Set<Long> parents = new HashSet<>();
    for (Block b : r.live.values()) {
      parents.add(b.parentExternal());
    }
    List<Long> leaves = new ArrayList<>();
    for (Map.Entry<Long, Block> e : r.live.entrySet()) {
      if (!parents.contains(e.getKey())) {
        leaves.add(e.getKey());
      }
    }
    int take = Math.min(n, leaves.size());
    if (take == 0) {
      return 0;
    }
    long[] removed = new long[take];
    for (int i = 0; i < take; i++) {
      long ext = leaves.get(leaves.size() - 1 - i);
      removed[i] = ext;
      Block b = r.live.remove(ext);
      r.externalByCanonical.remove(b.canonical());
    }
    emit(r, KvEventData.Removed.of(removed));
    return take;
  }

  /** Clears every block of {@code rank}. */
  synchronized void clear(int rank) {
    Rank r = ranks.get(rank);
    r.live.clear();
    r.externalByCanonical.clear();
    emit(r, KvEventData.Cleared.INSTANCE);
  }

  /** The in-memory publisher of {@code rank}'s kv-events (drop, duplicate, hold, raw bytes). */
  synchronized InMemoryEventPlane.Publisher publisher(int rank) {
    return ranks.get(rank).publisher;
  }

  /** Publishes {@code data} as the next event of {@code rank} without changing the model (bad input). */
  synchronized void emitRaw(int rank, KvEventData data) {
    emit(ranks.get(rank), data);
  }

  /**
   * The network loses the next message of {@code rank}: the worker still logs the event (it can answer a recovery
   * query for it), the relay sees a gap on the event after it.
   */
  synchronized void loseNextEvent(int rank) {
    PublisherFaults.dropNext(ranks.get(rank).publisher, 1);
  }

  /** Publishes a kv_metrics report for {@code rank}. */
  synchronized void reportLoad(int rank, long kvUsedBlocks) {
    ranks.get(rank).loadPublisher.publish(new ActiveLoad(workerId, rank, OptionalLong.empty(), OptionalLong.empty(),
        null, OptionalLong.of(kvUsedBlocks)));
  }

  private void emit(Rank r, KvEventData data) {
    long id = r.nextEventId++;
    RouterEvent e = new RouterEvent(workerId, StorageTier.DEVICE,
        data instanceof KvEventData.Cleared ? ResidencyDomain.ABSENT : ResidencyDomain.WORKER, id, r.dpRank, data);
    r.log.add(e);
    r.publisher.publish(e);
  }

  /** The canonical hashes this worker holds on every rank right now (the exact model). */
  synchronized Set<Long> liveCanonicals() {
    Set<Long> out = new HashSet<>();
    for (Rank r : ranks.values()) {
      for (Block b : r.live.values()) {
        out.add(b.canonical());
      }
    }
    return out;
  }

  /** Where this worker holds {@code canonical}: rank, publisher, external id, next event id (diagnostics). */
  synchronized String describe(long canonical) {
    StringBuilder b = new StringBuilder();
    for (Rank r : ranks.values()) {
      Long ext = r.externalByCanonical.get(canonical);
      if (ext != null) {
        b.append("worker ").append(workerId).append(" rank ").append(r.dpRank).append(" publisher ")
            .append(Long.toUnsignedString(r.publisherId)).append(" external ").append(ext).append(" nextEventId ")
            .append(r.nextEventId).append(" log ").append(r.log.size()).append("; ");
      }
    }
    return b.toString();
  }

  synchronized List<Long> publisherIds() {
    List<Long> out = new ArrayList<>();
    for (Rank r : ranks.values()) {
      out.add(r.publisherId);
    }
    return out;
  }

  // ------------------------------------------------------------------ recovery answers

  private synchronized WorkerKvQueryResponse answer(WorkerKvQueryRequest request) {
    Rank r = ranks.get(request.dpRank());
    if (r == null || request.workerId() != workerId) {
      return new WorkerKvQueryResponse.Error("unknown rank " + request.dpRank());
    }
    long last = r.nextEventId - 1;
    if (request.startEventId().isEmpty()) {
      List<RouterEvent> dump = new ArrayList<>();
      long synthetic = 0;
      for (Map.Entry<Long, Block> e : r.live.entrySet()) {
        Block b = e.getValue();
        dump.add(new RouterEvent(workerId, StorageTier.DEVICE, ResidencyDomain.WORKER, synthetic++, r.dpRank,
            new KvEventData.Stored(b.parentExternal() == 0 ? OptionalLong.empty() : OptionalLong.of(b.parentExternal()),
                OptionalLong.empty(), List.of(StoredBlock.of(e.getKey(), b.tokensHash())))));
      }
      return new WorkerKvQueryResponse.TreeDump(dump, last, "all");
    }
    long start = request.startEventId().getAsLong();
    List<RouterEvent> events = new ArrayList<>();
    for (RouterEvent e : r.log) {
      if (e.eventId() >= start) {
        events.add(e);
      }
    }
    return new WorkerKvQueryResponse.Events(events, last);
  }

  /** Canonical chain of a token prompt for this worker's block size (no salt). */
  long[] sequenceHashes(int[] tokens) {
    return hasher.sequenceHashes(tokens);
  }

  static long root(long t) {
    return SequenceHash.root(t);
  }
}
