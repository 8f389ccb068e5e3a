package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.SubscriberId;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.ExecutorActorScheduler;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.RelaySource;
import dev.kvrelay.engine.wire.WireSource;
import dev.kvrelay.engine.wire.WireSources;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: all state is confined to one serial consumer task (on the caller's executor, or on one daemon
 * thread the consumer owns and stops on {@link #close()}); {@link #query}, {@link #readiness}, {@link #load},
 * {@link #replicaStates}, {@link #stats}, {@link #start} and {@link #close} may be called from any thread. The JVM router's one-stop consumer (wan-grpc.md §7): it reads up to 16
 * {@link RelaySource}s (one per DC) for one indexer domain, keeps a {@code GlobalView} fed and answers
 * "tokens → matched prefix depth and tokens per DC pool".
 *
 * <p>This class is the facade and its builder; the work is split by job, all on the one consumer task:
 * <ul>
 *   <li>source supervision ({@link SourceSupervisor}): per source, as independent state machines (§7.1), the
 *       catalog ({@code CatalogView}, published as {@link #catalog}), the readiness ({@code ReadinessView}) and the pool load ({@code LoadView}),
 *       each fed by its stream ({@link CatalogWatch}, {@link ReadinessWatch}, {@link LoadWatch});
 *   <li>lane reconciliation ({@link LaneReconciler}): a catalog change is reconciled against the global view —
 *       pools of the domain that are new, or listed with a new ProducerKey, are assigned a lane and subscribed;
 *       pools gone, quarantined or re-keyed are unsubscribed and unassigned; each change of the lane mapping
 *       publishes a fresh indexer (see {@code GlobalView}), so every replica is then rebound on it and resubscribed
 *       (new lease, new snapshot);
 *   <li>pool sessions ({@link PoolSession}): one {@code PoolReplica} per pool, fed by its pool stream.
 * </ul>
 * Frames are drained on the consumer task when the stream signals availability; streams are polled, never waited
 * on, so nothing blocks the scheduler.
 *
 * <p>Failures (§7.4 step 6, §7.6): a replica's own failure, a pool stream error or a clean EOF invalidates only
 * that replica and resubscribes it after backoff; {@code CONTRACT_MISMATCH} and {@code INVALID_REQUEST} (and a
 * marker or version mismatch) stop the source for good; a catalog stream failure, a catalog revision error or a
 * relay identity change drops all of the source's state and reconnects after backoff. Readiness and load
 * streams are reopened on their own after backoff and never touch CKF state. A replica silent for longer than
 * the max-age is invalidated ({@link ReplicaTermination#STALE}) by a periodic sweep. Everything is counted in
 * {@link #stats()}.
 *
 * <p>Clocks: replica freshness and queries use the monotonic {@code nanoTime} clock (in µs); readiness and load
 * receive times use the {@code epochMicros} clock.
 */
public final class RelayConsumer implements AutoCloseable {
  /** At most one source per lane of the global view. */
  public static final int MAX_SOURCES = GlobalView.LANES;
  /** The subscriber id base leaves room for the longest suffix within the 128-byte limit (§2.1, §7.6). */
  public static final int MAX_SUBSCRIBER_BASE_BYTES = 118;

  private final ConsumerContext context;
  private final GlobalView view;
  private final SourceSupervisor supervisor;
  private final List<String> sourceNames;
  /** The scheduler over the thread the consumer created and stops on close, or null when the caller owns it. */
  private final @Nullable OwnedScheduler ownedScheduler;

  private RelayConsumer(Builder b) {
    this.view = GlobalView.create(b.consumerInstance, Objects.requireNonNull(b.domain),
        Objects.requireNonNull(b.format), Objects.requireNonNull(b.semantics), b.maxAgeUs);
    String subscriberBase = Objects.requireNonNull(b.subscriberIdBase);
    ActorScheduler scheduler;
    if (b.scheduler != null) {
      scheduler = b.scheduler;
      this.ownedScheduler = null;
    } else if (b.executor != null) {
      scheduler = new ExecutorActorScheduler(b.executor);
      this.ownedScheduler = null;
    } else {
      OwnedScheduler own = new OwnedScheduler(subscriberBase);
      scheduler = own;
      this.ownedScheduler = own;
    }
    // The caller's executor may have many threads: its tasks are serialised so the consumer's state stays confined.
    this.context = new ConsumerContext(b.consumerInstance, b.maxAgeUs, subscriberBase, scheduler, b.executor != null,
        Objects.requireNonNull(b.nanoTime), Objects.requireNonNull(b.epochMicros),
        b.backoff == null ? BackoffPolicy.DEFAULT : b.backoff,
        b.randomSeed == null ? System.nanoTime() : b.randomSeed);
    this.supervisor = new SourceSupervisor(context, view, b.sources);
    this.sourceNames = List.copyOf(b.sources.keySet());
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Opens every source's streams (on the consumer task). Idempotent; ignored after {@link #close()}. */
  public void start() {
    context.execute(supervisor::start);
  }

  /**
   * Per-DC prefix depths of {@code tokens} for the pools serving {@code model}, named either by a registration's
   * canonical model id or by one of its aliases (each pool salted by the target of the registration that
   * matched); any thread, no lock. Every match is also keyed by the name its source was given in
   * {@link Builder#source} ({@link GlobalViewAnswer#bySource()}).
   */
  public GlobalViewAnswer query(int @Nullable [] tokens, @Nullable String model) {
    GlobalViewAnswer answer = view.queryModel(tokens, model, context.monoUs());
    if (answer.matches().isEmpty()) {
      return answer;
    }
    List<ReplicaStatus> states = supervisor.replicaStates();
    return answer.withSources(pool -> {
      for (ReplicaStatus s : states) {
        if (s.pool().equals(pool)) {
          return s.source();
        }
      }
      return null;
    });
  }

  /**
   * The catalog of source {@code sourceName} as last applied: the relay's identity, the revision and the usable
   * (validated, unambiguous) pools in ascending pool order; empty for an unknown name, before the source's first
   * catalog update, and after a reset of the source until its next update. Any thread.
   */
  public Optional<CatalogSnapshot> catalog(String sourceName) {
    ConsumerSource s = supervisor.source(sourceName);
    return s == null ? Optional.empty() : Optional.ofNullable(s.catalogSnapshot);
  }

  /** The readiness of source {@code sourceName}, or empty for an unknown name. */
  public Optional<ReadinessSnapshot> readiness(String sourceName) {
    ConsumerSource s = supervisor.source(sourceName);
    return s == null ? Optional.empty() : Optional.of(s.readiness);
  }

  /** The pool load of source {@code sourceName}, or empty for an unknown name. */
  public Optional<LoadSnapshot> load(String sourceName) {
    ConsumerSource s = supervisor.source(sourceName);
    return s == null ? Optional.empty() : Optional.of(s.load);
  }

  /** The replicas as last published, in assignment order. */
  public List<ReplicaStatus> replicaStates() {
    return supervisor.replicaStates();
  }

  /** The counters now. */
  public ConsumerStats stats() {
    return context.counters.snapshot();
  }

  /**
   * Closes every stream (on the consumer task) and stops all retries; a consumer that owns its thread (no
   * {@link Builder#executor executor} given) stops it once that last task ran. Idempotent.
   */
  @Override
  public void close() {
    context.markClosed();
    context.execute(supervisor::close);
    OwnedScheduler own = ownedScheduler;
    if (own != null) {
      own.shutdown(); // the queued close task still runs; pending timers are dropped
    }
  }

  /** The global view (tests and diagnostics; mutate only from the consumer task). */
  GlobalView globalView() {
    return view;
  }

  /** Not thread-safe: confined to the building thread. Each setter may be called once; {@link #build()} checks. */
  public static final class Builder {
    private @Nullable Long consumerInstanceSet;
    private long consumerInstance;
    private @Nullable IndexerDomainId domain;
    private @Nullable CkfFormat format;
    private @Nullable KvQuerySemantics semantics;
    private long maxAgeUs;
    private boolean maxAgeSet;
    private @Nullable String subscriberIdBase;
    private @Nullable ActorScheduler scheduler;
    private @Nullable ScheduledExecutorService executor;
    private @Nullable LongSupplier nanoTime;
    private @Nullable LongSupplier epochMicros;
    private @Nullable BackoffPolicy backoff;
    private @Nullable Long randomSeed;
    private final Map<String, WireSource> sources = new LinkedHashMap<>();

    private Builder() {}

    private static void once(boolean alreadySet, String what) {
      if (alreadySet) {
        throw new IllegalStateException(what + " is already set");
      }
    }

    /** The consumer instance id the lane leases carry (unsigned 64-bit). */
    public Builder consumerInstance(long id) {
      once(consumerInstanceSet != null, "consumerInstance");
      consumerInstanceSet = id;
      consumerInstance = id;
      return this;
    }

    /** The one indexer domain this consumer reads. */
    public Builder domain(IndexerDomainId domain) {
      once(this.domain != null, "domain");
      this.domain = Objects.requireNonNull(domain, "domain");
      return this;
    }

    /** The one CKF format of the domain's pools. */
    public Builder format(CkfFormat format) {
      once(this.format != null, "format");
      this.format = Objects.requireNonNull(format, "format");
      return this;
    }

    /** The domain's query semantics. */
    public Builder semantics(KvQuerySemantics semantics) {
      once(this.semantics != null, "semantics");
      this.semantics = Objects.requireNonNull(semantics, "semantics");
      return this;
    }

    /** The replica max-age in µs (choose ≥ 2–3 × the pool heartbeat interval), &gt; 0. */
    public Builder maxAgeUs(long maxAgeUs) {
      once(maxAgeSet, "maxAgeUs");
      maxAgeSet = true;
      this.maxAgeUs = maxAgeUs;
      return this;
    }

    /** The subscriber id base (≤ 118 UTF-8 bytes); the streams use it with "/catalog", "/ckf", "/readiness", "/load". */
    public Builder subscriberIdBase(String base) {
      once(subscriberIdBase != null, "subscriberIdBase");
      this.subscriberIdBase = Objects.requireNonNull(base, "base");
      return this;
    }

    /**
     * The executor the consumer's one serial task runs on (optional). It may have any number of threads, and be
     * shared with other work: the consumer queues its tasks and runs them one at a time, in order, on whichever
     * of its threads is free (a batch of 64 at most per turn). The caller owns it: {@link #close()} does not shut
     * it down. Without one, the consumer runs on one daemon thread of its own and stops it on close.
     */
    public Builder executor(ScheduledExecutorService executor) {
      once(this.executor != null || this.scheduler != null, "executor");
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** The scheduler whose serial task owns all consumer state (tests: a manual, deterministic one). */
    Builder scheduler(ActorScheduler scheduler) {
      once(this.scheduler != null || this.executor != null, "scheduler");
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** The clocks: a monotonic {@code nanoTime} and the wall clock in µs since the epoch. Both thread-safe. */
    public Builder clocks(LongSupplier nanoTime, LongSupplier epochMicros) {
      once(this.nanoTime != null, "clocks");
      this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
      this.epochMicros = Objects.requireNonNull(epochMicros, "epochMicros");
      return this;
    }

    /** The backoff policy (default {@link BackoffPolicy#DEFAULT}). */
    public Builder backoff(BackoffPolicy policy) {
      once(backoff != null, "backoff");
      this.backoff = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** The seed of the jitter (default: from the clock); tests fix it. */
    public Builder randomSeed(long seed) {
      once(randomSeed != null, "randomSeed");
      this.randomSeed = seed;
      return this;
    }

    /**
     * Adds one relay (one DC) under a unique non-empty name; at most {@value RelayConsumer#MAX_SOURCES}.
     *
     * @param source a {@code RelayEngine} in this process or a {@code RelayGrpcClient}
     * @throws IllegalArgumentException for an empty name, or a source that is neither
     */
    public Builder source(String name, RelaySource source) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(source, "source");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("source name must not be empty");
      }
      WireSource wire = WireSources.of(source);
      once(sources.containsKey(name), "source " + name);
      sources.put(name, wire);
      return this;
    }

    /**
     * Checks every field and their combination and builds the (not yet started) consumer.
     *
     * @throws IllegalStateException naming every missing or invalid setting
     */
    public RelayConsumer build() {
      List<String> problems = new ArrayList<>();
      if (consumerInstanceSet == null) {
        problems.add("consumerInstance missing");
      }
      if (domain == null) {
        problems.add("domain missing");
      }
      if (format == null) {
        problems.add("format missing");
      }
      if (semantics == null) {
        problems.add("semantics missing");
      }
      if (!maxAgeSet) {
        problems.add("maxAgeUs missing");
      } else if (maxAgeUs <= 0 || maxAgeUs > Long.MAX_VALUE / 1_000L) {
        problems.add("maxAgeUs must be in 1.." + Long.MAX_VALUE / 1_000L + ", got " + maxAgeUs);
      }
      if (subscriberIdBase == null) {
        problems.add("subscriberIdBase missing");
      } else {
        String base = subscriberIdBase;
        try {
          SubscriberId.check(base); // the wire rules of every subscriber_id (non-empty, no control character)
        } catch (RelayException e) {
          problems.add("subscriberIdBase: " + e.getMessage());
        }
        if (!StandardCharsets.UTF_8.newEncoder().canEncode(base)) {
          problems.add("subscriberIdBase is not well-formed UTF-16");
        } else if (base.getBytes(StandardCharsets.UTF_8).length > MAX_SUBSCRIBER_BASE_BYTES) {
          // room for the longest suffix ("/readiness") within the 128-byte subscriber_id limit
          problems.add("subscriberIdBase exceeds " + MAX_SUBSCRIBER_BASE_BYTES + " UTF-8 bytes");
        }
      }
      if (nanoTime == null) {
        problems.add("clocks missing");
      }
      if (sources.isEmpty()) {
        problems.add("at least one source is required");
      } else if (sources.size() > MAX_SOURCES) {
        problems.add("at most " + MAX_SOURCES + " sources, got " + sources.size());
      }
      if (!problems.isEmpty()) {
        throw new IllegalStateException("invalid RelayConsumer settings: " + String.join("; ", problems));
      }
      return new RelayConsumer(this);
    }
  }


  @Override
  public String toString() {
    return "RelayConsumer[sources=" + Arrays.toString(sourceNames.toArray()) + ", " + view + "]";
  }
}
