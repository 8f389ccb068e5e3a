package dev.kvrelay.launcher;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread-safe (every method is synchronized): one simulated Dynamo inference worker with data-parallel ranks,
 * as a relay sees it. It advertises itself in discovery the way a Dynamo worker does (a model deployment card,
 * an endpoint instance, one KV event source per rank), publishes its KV cache changes as {@code kv-events} on
 * the event plane, and answers the relay's recovery queries from its true state (a tree dump of the live blocks,
 * or the events of its log from a given id), so a relay that joins late or misses a message can catch up.
 *
 * <p>The worker is also the demo's exact model: {@link #holds(long)} says whether a canonical block hash is
 * cached on any of its ranks right now.
 */
final class DemoWorker {
  private final InMemoryDiscovery discovery;
  private final InMemoryRequestPlane requests;
  private final String name;
  private final DynamoEndpointId endpoint;
  private final long workerId;
  private final String model;
  private final List<String> aliases;
  private final TokenBlockHasher hasher;
  private final Map<Integer, Rank> ranks = new LinkedHashMap<>();
  /** Recovery queries answered so far (the request plane's scheduler thread counts, any thread reads). */
  private final AtomicInteger recoveryQueriesSeen = new AtomicInteger();
  /** The demo's own simulated worker indexer: every recovery query is answered from this worker's blocks. */
  private final InMemoryRequestPlane.Worker recoveryAnswers = (endpoint, request) -> {
    recoveryQueriesSeen.incrementAndGet();
    return new InMemoryRequestPlane.Worker.Answer(answerRecoveryQuery(request), Duration.ZERO);
  };
  /** Engine block ids are opaque to the relay; a per-worker counter here. */
  private long nextExternalId;

  /** Immutable and thread-safe: one cached block: parent external id (empty for a root), tokens hash, canonical hash. */
  private record Block(OptionalLong parentExternal, long tokensHash, long canonical) {}

  /** Confined to its worker (guarded by the worker's monitor): one rank's publisher, event log and live blocks. */
  private static final class Rank {
    final int dpRank;
    final long publisherId;
    final InMemoryEventPlane.Publisher publisher;
    final List<RouterEvent> log = new ArrayList<>();
    final LinkedHashMap<Long, Block> live = new LinkedHashMap<>();
    final Map<Long, Long> externalByCanonical = new HashMap<>();
    long nextEventId = 1;

    Rank(int dpRank, long publisherId, InMemoryEventPlane.Publisher publisher) {
      this.dpRank = dpRank;
      this.publisherId = publisherId;
      this.publisher = publisher;
    }
  }

  /**
   * A worker serving {@code model} (with request {@code aliases}) on {@code endpoint} with {@code rankCount}
   * data-parallel ranks, hashing token blocks with {@code hasher}.
   */
  DemoWorker(String name, long workerId, DynamoEndpointId endpoint, String model, List<String> aliases,
      int rankCount, TokenBlockHasher hasher, InMemoryDiscovery discovery, InMemoryEventPlane plane,
      InMemoryRequestPlane requests) {
    this.name = name;
    this.workerId = workerId;
    this.endpoint = endpoint;
    this.model = model;
    this.aliases = List.copyOf(aliases);
    this.hasher = hasher;
    this.discovery = discovery;
    this.requests = requests;
    this.nextExternalId = workerId << 20;
    for (int r = 0; r < rankCount; r++) {
      long publisherId = publisherId(workerId, r);
      ranks.put(r, new Rank(r, publisherId,
          plane.publisher(new EventScope.Endpoint(endpoint), EventTopics.KV_EVENTS, publisherId)));
    }
  }

  /** The worker's display name (e.g. {@code us-west/worker-1}). */
  String name() {
    return name;
  }

  /** The worker (discovery instance) id. */
  long workerId() {
    return workerId;
  }

  /** The number of data-parallel ranks. */
  synchronized int rankCount() {
    return ranks.size();
  }

  /**
   * Advertises the worker: model card, endpoint instance and one recoverable KV event source per rank; from now
   * on the request plane routes recovery queries for this worker id here.
   *
   * @throws DiscoveryDecodeException if the card does not decode (a bug in this class)
   */
  synchronized void start() throws DiscoveryDecodeException {
    requests.register(workerId, recoveryAnswers);
    discovery.put(ModelRecord.of(new ModelKey(endpoint, workerId, null), card()));
    discovery.put(instance());
    for (Rank rank : ranks.values()) {
      discovery.put(new EventSourceRecord(
          new EventSourceKey(new EventScope.Endpoint(endpoint), EventTopics.KV_EVENTS, rank.publisherId),
          new KvEventSource(endpoint, workerId, rank.dpRank, rank.publisherId, instance())));
    }
  }

  /** The model deployment card ({@code card_json}) with the fields the relay reads. */
  private JsonObject card() {
    JsonObject runtime = JsonObject.builder()
        .put("data_parallel_start_rank", 0)
        .put("data_parallel_size", ranks.size())
        .put("total_kv_blocks", 4096)
        .build();
    JsonObject.Builder card = JsonObject.builder()
        .put("display_name", model)
        .put("kv_cache_block_size", hasher.blockSize())
        .put("worker_type", "aggregated")
        .put("runtime_config", runtime);
    if (!aliases.isEmpty()) {
      card.put("aliases", JsonArray.ofStrings(aliases));
    }
    return card.build();
  }

  private EndpointRecord instance() {
    return new EndpointRecord(new EndpointKey(endpoint, workerId),
        new Transport.Tcp("127.0.0.1:0/" + Long.toUnsignedString(workerId)), "json", null);
  }

  /**
   * Caches the full blocks of {@code tokens} on {@code rank}, as an inference engine does after a prefill: the
   * blocks the rank does not hold yet are published as one {@code Stored} event whose parent is the deepest block
   * it already holds. A trailing partial block is not cached.
   *
   * @return the number of blocks newly stored
   */
  synchronized int cache(int rank, int[] tokens) {
    Rank r = rank(rank);
    long[] canonical = hasher.sequenceHashes(tokens);
    long[] tokensHashes = hasher.blockHashes(tokens);
    int held = 0;
    Long deepestHeld = null;
    while (held < canonical.length) {
      Long external = r.externalByCanonical.get(canonical[held]);
      if (external == null) {
        break;
      }
      deepestHeld = external;
      held++;
    }
    if (held == canonical.length) {
      return 0;
    }
    OptionalLong parent = deepestHeld == null ? OptionalLong.empty() : OptionalLong.of(deepestHeld);
    List<StoredBlock> blocks = new ArrayList<>(canonical.length - held);
    OptionalLong blockParent = parent;
    for (int i = held; i < canonical.length; i++) {
      long external = nextExternalId++;
      blocks.add(StoredBlock.of(external, tokensHashes[i]));
      r.live.put(external, new Block(blockParent, tokensHashes[i], canonical[i]));
      r.externalByCanonical.put(canonical[i], external);
      blockParent = OptionalLong.of(external);
    }
    publish(r, new KvEventData.Stored(parent, OptionalLong.empty(), blocks));
    return blocks.size();
  }

  /**
   * Evicts the blocks of {@code tokens} deeper than {@code keepBlocks} from {@code rank}, deepest first, as a
   * cache evicts leaves: it stops at the first block another cached prompt still extends. Published as one
   * {@code Removed} event.
   *
   * @return the number of blocks removed
   */
  synchronized int evict(int rank, int[] tokens, int keepBlocks) {
    Rank r = rank(rank);
    long[] canonical = hasher.sequenceHashes(tokens);
    Set<Long> parents = new HashSet<>();
    for (Block b : r.live.values()) {
      b.parentExternal().ifPresent(parents::add);
    }
    List<Long> removed = new ArrayList<>();
    for (int i = canonical.length - 1; i >= Math.max(0, keepBlocks); i--) {
      Long external = r.externalByCanonical.get(canonical[i]);
      if (external == null) {
        continue;
      }
      if (parents.contains(external)) {
        break; // still the parent of another cached block: not a leaf
      }
      Block b = Objects.requireNonNull(r.live.remove(external), "a canonical hash maps to a block that is not live");
      r.externalByCanonical.remove(canonical[i]);
      b.parentExternal().ifPresent(parents::remove);
      removed.add(external);
    }
    if (removed.isEmpty()) {
      return 0;
    }
    long[] ids = new long[removed.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = removed.get(i);
    }
    publish(r, KvEventData.Removed.of(ids));
    return ids.length;
  }

  /** True if any rank of this worker caches the block with canonical (sequence) hash {@code canonical}. */
  synchronized boolean holds(long canonical) {
    for (Rank r : ranks.values()) {
      if (r.externalByCanonical.containsKey(canonical)) {
        return true;
      }
    }
    return false;
  }

  /** The number of blocks cached over all ranks. */
  synchronized int cachedBlocks() {
    int n = 0;
    for (Rank r : ranks.values()) {
      n += r.live.size();
    }
    return n;
  }

  /** The number of recovery queries the relay sent this worker so far (tree dumps and event ranges). */
  int recoveryQueries() {
    return recoveryQueriesSeen.get();
  }

  private Rank rank(int rank) {
    Rank r = ranks.get(rank);
    if (r == null) {
      throw new IllegalArgumentException(name + " has no data-parallel rank " + rank);
    }
    return r;
  }

  private void publish(Rank r, KvEventData data) {
    RouterEvent event = new RouterEvent(workerId, StorageTier.DEVICE, ResidencyDomain.WORKER, r.nextEventId++,
        r.dpRank, data);
    r.log.add(event);
    r.publisher.publish(event);
  }

  /** Answers a recovery query on the request plane's thread: a tree dump, or the logged events from an id. */
  private synchronized WorkerKvQueryResponse answerRecoveryQuery(WorkerKvQueryRequest request) {
    Rank r = request.workerId() == workerId ? ranks.get(request.dpRank()) : null;
    if (r == null) {
      return new WorkerKvQueryResponse.Error("unknown worker/rank " + Long.toUnsignedString(request.workerId())
          + "/" + Integer.toUnsignedString(request.dpRank()));
    }
    long lastEventId = r.nextEventId - 1;
    if (request.startEventId().isEmpty()) {
      // Parents before children: a block is inserted after its parent and evicted before it (leaves first).
      List<RouterEvent> dump = new ArrayList<>(r.live.size());
      long syntheticId = 0;
      for (Map.Entry<Long, Block> e : r.live.entrySet()) {
        Block b = e.getValue();
        dump.add(new RouterEvent(workerId, StorageTier.DEVICE, ResidencyDomain.WORKER, syntheticId++, r.dpRank,
            new KvEventData.Stored(b.parentExternal(), OptionalLong.empty(),
                List.of(StoredBlock.of(e.getKey(), b.tokensHash())))));
      }
      return new WorkerKvQueryResponse.TreeDump(dump, lastEventId, "all");
    }
    long start = request.startEventId().getAsLong();
    if (start > lastEventId + 1) {
      return new WorkerKvQueryResponse.TooNew(request.startEventId(), request.endEventId(), lastEventId);
    }
    List<RouterEvent> events = new ArrayList<>();
    for (RouterEvent e : r.log) {
      if (e.eventId() >= start) {
        events.add(e);
      }
    }
    return new WorkerKvQueryResponse.Events(events, lastEventId);
  }

  /** Dynamo draws a random publisher id per incarnation; here a SplitMix64 finalizer of (worker, rank). */
  private static long publisherId(long workerId, int rank) {
    long z = (workerId * 31 + rank + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  @Override
  public synchronized String toString() {
    return name + " (worker " + Long.toUnsignedString(workerId) + ", " + ranks.size() + " ranks, "
        + cachedBlocks() + " blocks cached, " + recoveryQueries() + " recovery queries answered)";
  }
}
