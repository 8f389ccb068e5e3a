package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.ckf.consumer.CkfLaneOwner;
import dev.kvrelay.ckf.consumer.GlobalCkfBuildException;
import dev.kvrelay.ckf.consumer.GlobalCkfIndexer;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.GlobalCkfManifest;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryResult;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryStatus;
import dev.kvrelay.ckf.hashing.BlockHashSalt;
import dev.kvrelay.ckf.hashing.HashingInputException;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe for {@link #query} and {@link #recordActivity} (any thread); every lane-mapping change
 * ({@link #assign}, {@link #remove}, {@link #claimLane}) is confined to one owner thread. The consumer's
 * global view (ckf-cbi1.md §7, wan-grpc.md §7.4 steps 7–8): the pools of one {@link IndexerDomainId}, one
 * {@link CkfFormat} and one {@link KvQuerySemantics}, from up to 16 DCs with distinct dc ids, each bound to
 * one lane of a {@link GlobalCkfIndexer}, answering per-DC prefix depths of a request.
 *
 * <p>The manifest of a {@link GlobalCkfIndexer} is immutable, so each change of the lane mapping publishes a
 * new <em>generation</em> with a fresh indexer: existing pools keep their lane number, but the owner must
 * re-claim their lanes ({@link #claimLane}) and re-subscribe (new lease, new snapshot). A pure metadata update
 * of the same producer ({@link GlobalViewAssignment.Outcome#UPDATED}) keeps the indexer. Queries read the
 * current generation once (volatile) and never lock.
 *
 * <p>A query hashes the request with the domain's query semantics (block size, standard or EAGLE windows)
 * and the salt of the matched registration: the canonical LoRA adapter for a LoRA target, no salt for a base
 * target (runtime-inputs.md §7.1, variant (a)). It reports only lanes that are ready in the indexer and
 * fresh: a frame or heartbeat was {@linkplain #recordActivity recorded} within {@code maxAgeUs}. Pools the
 * view does not hold are never queried, so no default semantics are ever used.
 */
final class GlobalView {
  static final int LANES = 16;
  private static final long NEVER = Long.MIN_VALUE;

  /**
   * Immutable (except the activity stamps): one published lane mapping. A class, not a record: the lanes array is
   * never written after publication (changes copy it), and a generation is never compared, hashed or printed.
   */
  private static final class Generation {
    private final long number;
    private final @Nullable KvPoolDescriptor[] lanes;
    private final @Nullable GlobalCkfIndexer<KvPoolId> indexer;
    private final AtomicLongArray lastActivityUs;

    Generation(long number, @Nullable KvPoolDescriptor[] lanes, @Nullable GlobalCkfIndexer<KvPoolId> indexer,
        AtomicLongArray lastActivityUs) {
      this.number = number;
      this.lanes = lanes;
      this.indexer = indexer;
      this.lastActivityUs = lastActivityUs;
    }

    long number() {
      return number;
    }

    @Nullable KvPoolDescriptor[] lanes() {
      return lanes;
    }

    @Nullable GlobalCkfIndexer<KvPoolId> indexer() {
      return indexer;
    }

    AtomicLongArray lastActivityUs() {
      return lastActivityUs;
    }
  }

  private final long consumerInstance;
  private final IndexerDomainId domain;
  private final CkfFormat format;
  private final KvQuerySemantics semantics;
  private final long maxAgeUs;
  private volatile Generation current;

  private GlobalView(
      long consumerInstance, IndexerDomainId domain, CkfFormat format, KvQuerySemantics semantics, long maxAgeUs) {
    this.consumerInstance = consumerInstance;
    this.domain = domain;
    this.format = format;
    this.semantics = semantics;
    this.maxAgeUs = maxAgeUs;
    this.current = new Generation(0, new KvPoolDescriptor[LANES], null, newActivity());
  }

  /**
   * An empty view of one indexer domain.
   *
   * @param consumerInstance the consumer instance id the lane leases carry (unsigned 64-bit)
   * @param domain the one indexer domain of every pool
   * @param format the one CKF format of every pool
   * @param semantics the domain's query semantics (its identity includes block size and hash format)
   * @param maxAgeUs the freshness max-age in µs ({@code overlap_max_age}), &gt; 0
   * @throws IllegalArgumentException if {@code maxAgeUs ≤ 0} (configuration, not wire input)
   */
  public static GlobalView create(
      long consumerInstance, IndexerDomainId domain, CkfFormat format, KvQuerySemantics semantics, long maxAgeUs) {
    Objects.requireNonNull(domain, "domain");
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(semantics, "semantics");
    if (maxAgeUs <= 0) {
      throw new IllegalArgumentException("maxAgeUs must be > 0, got " + maxAgeUs);
    }
    return new GlobalView(consumerInstance, domain, format, semantics, maxAgeUs);
  }

  private static AtomicLongArray newActivity() {
    AtomicLongArray a = new AtomicLongArray(LANES);
    for (int i = 0; i < LANES; i++) {
      a.set(i, NEVER);
    }
    return a;
  }

  /** The view's indexer domain. */
  public IndexerDomainId domain() {
    return domain;
  }

  /** The view's CKF format. */
  public CkfFormat format() {
    return format;
  }

  /** The view's query semantics. */
  public KvQuerySemantics semantics() {
    return semantics;
  }

  /** The current generation number (0 before the first assignment; +1 per mapping change). */
  public long generation() {
    return current.number();
  }

  /** The current generation's indexer, or null while no pool is assigned. */
  public @Nullable GlobalCkfIndexer<KvPoolId> indexer() {
    return current.indexer();
  }

  /** The lane of {@code pool} in the current generation, or -1. */
  public int laneOf(KvPoolId pool) {
    @Nullable KvPoolDescriptor[] lanes = current.lanes();
    for (int lane = 0; lane < LANES; lane++) {
      KvPoolDescriptor d = lanes[lane];
      if (d != null && d.poolId().equals(pool)) {
        return lane;
      }
    }
    return -1;
  }

  /** The descriptor bound to {@code lane}, or null. */
  public @Nullable KvPoolDescriptor descriptor(int lane) {
    return lane >= 0 && lane < LANES ? current.lanes()[lane] : null;
  }

  /** The number of bound lanes. */
  public int poolCount() {
    int n = 0;
    for (KvPoolDescriptor d : current.lanes()) {
      if (d != null) {
        n++;
      }
    }
    return n;
  }

  /**
   * Binds {@code descriptor}'s pool to the lowest free lane (owner thread only). Checked in this order:
   * same domain, same format, same query semantics, no other lane with the pool's dc id (the same producer
   * again only replaces the descriptor metadata), a free lane. A refusal changes nothing.
   */
  public GlobalViewAssignment assign(KvPoolDescriptor descriptor) {
    Objects.requireNonNull(descriptor, "descriptor");
    Generation g = current;
    KvPoolId pool = descriptor.poolId();
    if (!pool.indexerDomain().equals(domain)) {
      return GlobalViewAssignment.refused(GlobalViewRefusal.DIFFERENT_DOMAIN, g.number());
    }
    if (!descriptor.producer().ckfFormat().equals(format)) {
      return GlobalViewAssignment.refused(GlobalViewRefusal.DIFFERENT_FORMAT, g.number());
    }
    if (!descriptor.querySemantics().equals(semantics)) {
      return GlobalViewAssignment.refused(GlobalViewRefusal.DIFFERENT_QUERY_SEMANTICS, g.number());
    }
    int free = -1;
    for (int lane = 0; lane < LANES; lane++) {
      KvPoolDescriptor held = g.lanes()[lane];
      if (held == null) {
        if (free < 0) {
          free = lane;
        }
      } else if (held.poolId().dcId().equals(pool.dcId())) {
        if (!held.producer().equals(descriptor.producer())) {
          return GlobalViewAssignment.refused(GlobalViewRefusal.DUPLICATE_DC, g.number());
        }
        @Nullable KvPoolDescriptor[] lanes = g.lanes().clone();
        lanes[lane] = descriptor;
        current = new Generation(g.number(), lanes, g.indexer(), g.lastActivityUs());
        return new GlobalViewAssignment(GlobalViewAssignment.Outcome.UPDATED, lane, null, g.number());
      }
    }
    if (free < 0) {
      return GlobalViewAssignment.refused(GlobalViewRefusal.FULL, g.number());
    }
    @Nullable KvPoolDescriptor[] lanes = g.lanes().clone();
    lanes[free] = descriptor;
    publish(g.number() + 1, lanes);
    return new GlobalViewAssignment(GlobalViewAssignment.Outcome.ASSIGNED, free, null, g.number() + 1);
  }

  /**
   * Unbinds {@code pool} (owner thread only), publishing a new generation.
   *
   * @return false (and nothing changed) if the view does not hold {@code pool}
   */
  public boolean remove(KvPoolId pool) {
    Objects.requireNonNull(pool, "pool");
    Generation g = current;
    int lane = laneOf(pool);
    if (lane < 0) {
      return false;
    }
    @Nullable KvPoolDescriptor[] lanes = g.lanes().clone();
    lanes[lane] = null;
    publish(g.number() + 1, lanes);
    return true;
  }

  private void publish(long number, @Nullable KvPoolDescriptor[] lanes) {
    List<@Nullable CkfLaneOwner<KvPoolId>> owners = new ArrayList<>(LANES);
    boolean any = false;
    for (KvPoolDescriptor d : lanes) {
      if (d == null) {
        owners.add(null);
      } else {
        owners.add(new CkfLaneOwner<>(d.poolId(), d.poolId().dcId().value()));
        any = true;
      }
    }
    GlobalCkfIndexer<KvPoolId> indexer = null;
    if (any) {
      try {
        indexer = GlobalCkfIndexer.create(GlobalCkfManifest.of(consumerInstance, format, owners));
      } catch (GlobalCkfBuildException e) {
        // Unreachable: at most 16 lanes, distinct dc ids and at least one bound lane were checked above.
        throw new IllegalStateException("manifest rejected a checked lane layout", e);
      }
    }
    current = new Generation(number, lanes, indexer, newActivity());
  }

  /**
   * The single ingestor of {@code pool}'s lane in the current generation (owner thread only), for a
   * {@link PoolReplica}.
   *
   * @return null if the view does not hold {@code pool}
   * @throws GlobalCkfBuildException {@code LANE_ALREADY_CLAIMED} if the lane already has an ingestor
   */
  public @Nullable GlobalCkfLaneIngestor<KvPoolId> claimLane(KvPoolId pool) throws GlobalCkfBuildException {
    Generation g = current;
    int lane = laneOf(pool);
    GlobalCkfIndexer<KvPoolId> indexer = g.indexer();
    return lane < 0 || indexer == null ? null : indexer.claimLane(lane);
  }

  /**
   * Records that {@code pool}'s replica accepted a frame or heartbeat at {@code nowUs} (freshness,
   * wan-grpc.md §7.4 step 7). Any thread; typically the pool's ingestion task.
   *
   * @return false (and nothing changed) if the current generation does not hold {@code pool}
   */
  public boolean recordActivity(KvPoolId pool, long nowUs) {
    Generation g = current;
    int lane = laneOf(g, pool);
    if (lane < 0) {
      return false;
    }
    g.lastActivityUs().set(lane, nowUs);
    return true;
  }

  private static int laneOf(Generation g, KvPoolId pool) {
    for (int lane = 0; lane < LANES; lane++) {
      KvPoolDescriptor d = g.lanes()[lane];
      if (d != null && d.poolId().equals(pool)) {
        return lane;
      }
    }
    return -1;
  }

  private boolean fresh(Generation g, int lane, long nowUs) {
    long last = g.lastActivityUs().get(lane);
    if (last == NEVER) {
      return false;
    }
    return !(nowUs > last && nowUs - last > maxAgeUs);
  }

  /** Per-DC prefix depths of {@code tokens} for the pools serving {@code target}; any thread. */
  public GlobalViewAnswer query(int @Nullable [] tokens, @Nullable ModelTarget target, long nowUs) {
    Generation g = current;
    if (tokens == null || target == null) {
      return GlobalViewAnswer.of(GlobalViewAnswer.Status.INVALID_REQUEST, g.number());
    }
    ModelTarget wanted = target;
    return run(g, tokens, targetsMatching(g, r -> r.target().equals(wanted)), nowUs);
  }

  /**
   * Per-DC prefix depths of {@code tokens} for the pools registering {@code canonicalModelId} (aliases do
   * not match); each pool is salted by the target of its own registration. Any thread.
   */
  public GlobalViewAnswer query(int @Nullable [] tokens, @Nullable String canonicalModelId, long nowUs) {
    Generation g = current;
    if (tokens == null || canonicalModelId == null) {
      return GlobalViewAnswer.of(GlobalViewAnswer.Status.INVALID_REQUEST, g.number());
    }
    String wanted = canonicalModelId;
    return run(g, tokens, targetsMatching(g, r -> r.canonicalModelId().equals(wanted)), nowUs);
  }

  /**
   * Per-DC prefix depths of {@code tokens} for the pools serving {@code model}, a canonical model id or an alias
   * (the name a router's request carries). Per pool, a registration whose canonical id is {@code model} wins;
   * otherwise the first registration listing {@code model} among its aliases. Each pool is salted by the target
   * of the registration that matched, never by the alias (wan-grpc.md §7.4 step 8). Any thread.
   */
  public GlobalViewAnswer queryModel(int @Nullable [] tokens, @Nullable String model, long nowUs) {
    Generation g = current;
    if (tokens == null || model == null) {
      return GlobalViewAnswer.of(GlobalViewAnswer.Status.INVALID_REQUEST, g.number());
    }
    String wanted = model;
    @Nullable ModelTarget[] targets = targetsMatching(g, r -> r.canonicalModelId().equals(wanted));
    @Nullable ModelTarget[] byAlias = targetsMatching(g, r -> r.aliases().contains(wanted));
    for (int lane = 0; lane < LANES; lane++) {
      if (targets[lane] == null) {
        targets[lane] = byAlias[lane];
      }
    }
    return run(g, tokens, targets, nowUs);
  }

  /** Per lane, the target of the pool's first registration matching {@code wanted}, or null. */
  private static @Nullable ModelTarget[] targetsMatching(
      Generation g, Predicate<ModelRegistration> wanted) {
    @Nullable ModelTarget[] targets = new ModelTarget[LANES];
    for (int lane = 0; lane < LANES; lane++) {
      KvPoolDescriptor d = g.lanes()[lane];
      if (d != null) {
        for (ModelRegistration r : d.registrations()) {
          if (wanted.test(r)) {
            targets[lane] = r.target();
            break;
          }
        }
      }
    }
    return targets;
  }

  /** The salt of a target: the canonical LoRA adapter, never an alias; none for a base target. */
  static BlockHashSalt saltOf(ModelTarget target) {
    return target instanceof ModelTarget.Lora lora ? BlockHashSalt.of(lora.adapter(), "") : BlockHashSalt.NONE;
  }

  private GlobalViewAnswer run(Generation g, int[] tokens, @Nullable ModelTarget[] targets, long nowUs) {
    int serving = 0;
    for (int lane = 0; lane < LANES; lane++) {
      if (targets[lane] != null) {
        serving |= 1 << lane;
      }
    }
    if (serving == 0) {
      return GlobalViewAnswer.of(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL, g.number());
    }
    GlobalCkfIndexer<KvPoolId> indexer = g.indexer();
    if (indexer == null) {
      return GlobalViewAnswer.of(GlobalViewAnswer.Status.UNAVAILABLE, g.number());
    }
    int[] depths = new int[LANES];
    int answered = 0;
    int pending = serving;
    GlobalCkfQueryResult<KvPoolId> result = null;
    while (pending != 0) {
      int first = Integer.numberOfTrailingZeros(pending);
      BlockHashSalt salt = saltOf(Objects.requireNonNull(targets[first]));
      int group = 0;
      for (int lane = first; lane < LANES; lane++) {
        ModelTarget t = targets[lane];
        if ((pending & (1 << lane)) != 0 && t != null && saltOf(t).equals(salt)) {
          group |= 1 << lane;
        }
      }
      pending &= ~group;
      long[] hashes;
      try {
        hashes = TokenBlockHasher.create(semantics.hashFormat(), semantics.kvBlockSize(), salt)
            .sequenceHashes(tokens);
      } catch (HashingInputException e) {
        // Unreachable: KvQuerySemantics has a nonzero block size. Report the group as not answerable.
        continue;
      }
      if (result == null) {
        result = indexer.newQueryResult();
      }
      if (indexer.query(hashes, result) != GlobalCkfQueryStatus.ANSWERED) {
        continue;
      }
      for (int lane = 0; lane < LANES; lane++) {
        if ((group & (1 << lane)) != 0 && result.reports(lane) && fresh(g, lane, nowUs)) {
          depths[lane] = result.prefixDepth(lane);
          answered |= 1 << lane;
        }
      }
    }
    if (answered == 0) {
      return GlobalViewAnswer.of(GlobalViewAnswer.Status.UNAVAILABLE, g.number());
    }
    List<GlobalViewMatch> matches = new ArrayList<>(Integer.bitCount(answered));
    for (int lane = 0; lane < LANES; lane++) {
      if ((answered & (1 << lane)) != 0) {
        KvPoolDescriptor d = Objects.requireNonNull(g.lanes()[lane]);
        matches.add(new GlobalViewMatch(d.poolId(), lane, depths[lane],
            Integer.toUnsignedLong(depths[lane]) * semantics.kvBlockSizeUnsigned()));
      }
    }
    return new GlobalViewAnswer(GlobalViewAnswer.Status.ANSWERED, matches, g.number());
  }

  @Override
  public String toString() {
    return "GlobalView[domain=" + domain + ", " + format + ", " + semantics + ", generation=" + current.number()
        + ", lanes=" + Arrays.toString(current.lanes()) + "]";
  }
}
