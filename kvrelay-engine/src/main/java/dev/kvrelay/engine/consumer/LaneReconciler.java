package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.ckf.consumer.GlobalCkfBuildException;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Not thread-safe: confined to the consumer task, except {@link #replicaStates()} (volatile, any thread) — the lane
 * reconciliation of one {@link RelayConsumer}: keeps one {@link PoolSession} per pool of the domain that the
 * sources' catalogs list, assigned a lane of the {@link GlobalView}.
 *
 * <p>Pools of the domain that are new, or listed with a new ProducerKey, are assigned a lane and subscribed; pools
 * gone, quarantined or re-keyed are unsubscribed and unassigned; a pool listed by two sources is refused for the
 * later one. Because each change of the lane mapping publishes a fresh indexer (see {@code GlobalView}), every
 * replica is then rebound on the new indexer and resubscribed (new lease, new snapshot).
 */
final class LaneReconciler {
  private final ConsumerContext context;
  private final GlobalView view;
  private final SourceEvents events;
  private final Map<KvPoolId, PoolSession> sessions = new LinkedHashMap<>();
  /** (source, pool, producer, refusal) keys refused at the last reconciliation: a refusal is counted once. */
  private Set<List<Object>> refusedKeys = new HashSet<>();
  private volatile List<ReplicaStatus> replicaStates = List.of();

  LaneReconciler(ConsumerContext context, GlobalView view, SourceEvents events) {
    this.context = context;
    this.view = view;
    this.events = events;
  }

  /** The replicas as last published, in assignment order (any thread). */
  List<ReplicaStatus> replicaStates() {
    return replicaStates;
  }

  /**
   * Brings the sessions and the global view in line with the sources' catalogs: the wanted pools are the domain's
   * pools of every running source (none once the consumer is closed).
   */
  void reconcile(List<ConsumerSource> sources) {
    Map<KvPoolId, ConsumerSource> wantedSource = new LinkedHashMap<>();
    Map<KvPoolId, KvPoolDescriptor> wanted = new LinkedHashMap<>();
    Set<List<Object>> refusedNow = new HashSet<>();
    if (!context.closed()) {
      for (ConsumerSource source : sources) {
        if (source.stopped) {
          continue;
        }
        for (KvPoolDescriptor d : new TreeMap<>(source.catalog.pools()).values()) {
          KvPoolId pool = d.poolId();
          if (!pool.indexerDomain().equals(view.domain())) {
            continue;
          }
          if (wanted.containsKey(pool)) {
            refusedNow.add(List.of(source.name, pool, d.producer(), GlobalViewRefusal.DUPLICATE_DC));
            continue;
          }
          wanted.put(pool, d);
          wantedSource.put(pool, source);
        }
      }
    }
    long generation = view.generation();
    for (PoolSession s : new ArrayList<>(sessions.values())) {
      KvPoolDescriptor d = wanted.get(s.pool);
      if (d == null || wantedSource.get(s.pool) != s.source || !d.producer().equals(s.producer)) {
        drop(s);
      }
    }
    for (Map.Entry<KvPoolId, KvPoolDescriptor> e : wanted.entrySet()) {
      KvPoolDescriptor d = e.getValue();
      PoolSession s = sessions.get(e.getKey());
      if (s != null) {
        if (!d.equals(s.descriptor)) {
          // same producer, new metadata: UPDATED keeps the lane; a refusal (e.g. other query semantics) drops it
          GlobalViewAssignment updated = view.assign(d);
          if (updated.accepted()) {
            s.descriptor = d;
          } else {
            drop(s);
            refusedNow.add(List.of(s.source.name, s.pool, d.producer(), Objects.requireNonNull(updated.refusal())));
          }
        }
        continue;
      }
      ConsumerSource source = Objects.requireNonNull(wantedSource.get(e.getKey()));
      GlobalViewAssignment a = view.assign(d);
      if (a.accepted()) {
        sessions.put(e.getKey(), new PoolSession(source, d, context, view, events));
      } else {
        refusedNow.add(List.of(source.name, e.getKey(), d.producer(), Objects.requireNonNull(a.refusal())));
      }
    }
    for (List<Object> key : refusedNow) {
      if (!refusedKeys.contains(key)) {
        context.counters.refusedLane();
      }
    }
    refusedKeys = refusedNow;
    if (view.generation() != generation) {
      rebindAll();
    }
    publishStates();
  }

  private void drop(PoolSession s) {
    s.dropped = true;
    s.detach();
    sessions.remove(s.pool);
    view.remove(s.pool);
  }

  /** A new generation: every replica claims its lane of the new indexer and resubscribes. */
  private void rebindAll() {
    for (PoolSession s : sessions.values()) {
      s.detach();
      s.replica = null;
      s.lane = view.laneOf(s.pool);
      GlobalCkfLaneIngestor<KvPoolId> ingestor;
      try {
        ingestor = view.claimLane(s.pool);
      } catch (GlobalCkfBuildException e) {
        ingestor = null;
      }
      if (ingestor == null) {
        context.counters.refusedLane(); // unreachable: a fresh indexer has every lane unclaimed
        continue;
      }
      s.replica = new PoolReplica(ingestor, context.maxAgeUs);
      s.subscribe();
    }
  }

  /** Invalidates replicas silent for longer than the max-age (§7.4 step 7). */
  void expireStale() {
    long now = context.monoUs();
    for (PoolSession s : new ArrayList<>(sessions.values())) {
      PoolReplica r = s.replica;
      if (s.dropped || r == null) {
        continue;
      }
      PoolReplica.FrameResult res = r.expireIfStale(now);
      if (res != null) {
        s.detach();
        s.onInvalidated(ReplicaTermination.STALE);
      }
    }
  }

  /** Closes every session (the consumer closed); the global view keeps its lanes. */
  void dropAll() {
    for (PoolSession s : sessions.values()) {
      s.dropped = true;
      s.detach();
    }
    sessions.clear();
    publishStates();
  }

  /** Publishes the sessions' states for any thread. */
  void publishStates() {
    List<ReplicaStatus> list = new ArrayList<>(sessions.size());
    for (PoolSession s : sessions.values()) {
      list.add(s.status());
    }
    replicaStates = List.copyOf(list);
  }
}
