package dev.kvrelay.engine.consumer;

import dev.kvrelay.engine.wire.WireSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the consumer task, except {@link #source} (an immutable map, any thread) — the
 * supervision of one {@link RelayConsumer}'s sources: opens them, stops a source for good or resets it and
 * reconnects after backoff (wan-grpc.md §7.2, §7.6), runs the periodic staleness sweep, and hands every catalog
 * change to the {@link LaneReconciler}.
 */
final class SourceSupervisor implements SourceEvents {
  private final ConsumerContext context;
  private final List<ConsumerSource> sources;
  private final Map<String, ConsumerSource> byName;
  private final LaneReconciler lanes;
  private boolean started;

  SourceSupervisor(ConsumerContext context, GlobalView view, Map<String, WireSource> relays) {
    this.context = context;
    List<ConsumerSource> list = new ArrayList<>();
    Map<String, ConsumerSource> names = new LinkedHashMap<>();
    for (Map.Entry<String, WireSource> e : relays.entrySet()) {
      ConsumerSource s = new ConsumerSource(e.getKey(), e.getValue(), context, this);
      list.add(s);
      names.put(e.getKey(), s);
    }
    this.sources = List.copyOf(list);
    this.byName = Map.copyOf(names);
    this.lanes = new LaneReconciler(context, view, this);
  }

  /** The source named {@code name}, or null (any thread). */
  @Nullable ConsumerSource source(String name) {
    return byName.get(name);
  }

  /** The replicas as last published (any thread). */
  List<ReplicaStatus> replicaStates() {
    return lanes.replicaStates();
  }

  /** Opens every source's catalog stream and starts the sweep; idempotent, ignored once closed. */
  void start() {
    if (started || context.closed()) {
      return;
    }
    started = true;
    for (ConsumerSource s : sources) {
      s.catalogWatch.open();
    }
    scheduleSweep();
  }

  /** Closes every stream and drops all source and session state. */
  void close() {
    for (ConsumerSource s : sources) {
      s.dropState();
    }
    lanes.dropAll();
  }

  private void scheduleSweep() {
    context.schedule(this::sweep, Math.max(1L, context.maxAgeUs * 1_000L / 2));
  }

  private void sweep() {
    if (context.closed()) {
      return;
    }
    lanes.expireStale();
    scheduleSweep();
  }

  @Override
  public void stopSource(ConsumerSource source) {
    if (source.stopped) {
      return;
    }
    source.stopped = true;
    context.counters.sourceStopped();
    source.dropState();
    lanes.reconcile(sources);
  }

  @Override
  public void resetSource(ConsumerSource source) {
    if (source.stopped || context.closed()) {
      return;
    }
    source.dropState();
    lanes.reconcile(sources);
    context.counters.reconnected();
    source.catalogWatch.reopenLater();
  }

  @Override
  public void catalogChanged() {
    lanes.reconcile(sources);
  }

  @Override
  public void replicasChanged() {
    lanes.publishStates();
  }
}
