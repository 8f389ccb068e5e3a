package dev.kvrelay.engine;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.hub.HubRegistry;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.stream.RelayAdmission;
import dev.kvrelay.engine.stream.WindowBroadcastStats;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (every read of the host hops onto the control task): the engine's queries of its running parts,
 * {@code RelayEngine.stats()}, {@code sync()} and the test diagnostics' producer words.
 */
final class EngineQueries {
  private final RelayIdentity identity;
  private final ControlTask control;
  private final RelayHost host;
  private final HubRegistry hubs;
  private final Publication publication;
  private final RelayAdmission admission;

  EngineQueries(RelayIdentity identity, ControlTask control, RelayHost host, HubRegistry hubs,
      Publication publication, RelayAdmission admission) {
    this.identity = identity;
    this.control = control;
    this.host = host;
    this.hubs = hubs;
    this.publication = publication;
    this.admission = admission;
  }

  /** {@code RelayEngine.stats()}: counters of every part (a consistent read of each part, not of the whole). */
  RelayEngineStats stats() {
    List<PoolStats> pools = new ArrayList<>();
    // The load aggregators are confined to the control thread: their counters are read there, with the list.
    List<Map.Entry<PoolRuntime, PoolStats.Load>> runtimes;
    try {
      runtimes = control.submit(() -> host.runtimes().stream()
          .map(r -> Map.entry(r, r.load.counters())).toList()).get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      runtimes = List.of();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      runtimes = List.of();
    }
    for (Map.Entry<PoolRuntime, PoolStats.Load> entry : runtimes) {
      PoolRuntime r = entry.getKey();
      PoolStats.Actor actor = r.actorStats(5_000);
      pools.add(new PoolStats(r.descriptor, actor, r.recovery.stats(), entry.getValue()));
    }
    RelayEngineStats.Hubs hubStats = hubs.stats();
    HostCounters c = host.counters();
    return new RelayEngineStats(identity, publication.catalog().revision(),
        publication.readinessWatch.current().revision(), pools, hubStats, c.reconciles.sum(), c.poolStarts.sum(),
        c.poolStartFailures.sum(), c.gracefulRetirements.sum(), c.fencedRetirements.sum(), c.sourceFaults.sum(),
        c.rejectedSources.sum(), c.hubFaults.sum(), c.discoveryErrors.sum(), c.discoveryDecodeErrors.sum(),
        c.eventDecodeErrors.sum(), c.loadObservations.sum(), c.loadRejected.sum(),
        c.unexpectedMessages.sum(), c.channelErrors.sum(), c.faultQueueOverflows.sum(),
        c.loadPublishErrors.sum(), streamStats(hubStats), c.planeFaultCounts());
  }

  /** The per-stream-type gauges and counters (wan-grpc §8); the pool stream's lag comes from the hubs. */
  private RelayEngineStats.Streams streamStats(RelayEngineStats.Hubs hubStats) {
    WindowBroadcastStats load = publication.loadBroadcast.stats();
    WindowBroadcastStats servingLoad = publication.servingLoadBroadcast.stats();
    int degraded = 0;
    for (KvPoolLoadEntry e : publication.loadBroadcast.current().pools()) {
      if (e.totalKvBlocks() == 0 || e.kvObservedRanks() < e.kvExpectedRanks()) {
        degraded++;
      }
    }
    return new RelayEngineStats.Streams(
        new RelayEngineStats.Stream(admission.catalog().inUse(), 0, admission.catalog().refused()),
        new RelayEngineStats.Stream(admission.poolStreams().inUse(), hubStats.lagged(),
            admission.poolStreams().refused()),
        new RelayEngineStats.Stream(admission.readiness().inUse(), 0, admission.readiness().refused()),
        new RelayEngineStats.Stream(admission.load().inUse(), load.lagged(), admission.load().refused()),
        new RelayEngineStats.Stream(admission.servingLoad().inUse(), servingLoad.lagged(),
            admission.servingLoad().refused()),
        load.published(), servingLoad.published(), degraded);
  }

  /**
   * Completes after every discovery change delivered so far has been applied, and every pool actor has drained
   * what it holds (a Flush through each mailbox). Useful in tests and at controlled points; recovery queries in
   * flight are not waited for: {@code RelayEngine.sync()}.
   */
  CompletableFuture<Void> sync() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      // The future is not needed: the task cannot throw (a refused submit answers, it does not throw).
      Future<?> unused = control.submit(() -> {
        List<CompletableFuture<PoolStats.Actor>> replies = new ArrayList<>();
        for (PoolRuntime r : host.runtimes()) {
          r.actor.submit(PoolCommand.Flush.INSTANCE);
          CompletableFuture<PoolStats.Actor> reply = new CompletableFuture<>();
          if (r.actor.submit(new PoolCommand.Stats(reply)).accepted()) {
            replies.add(reply);
          }
        }
        // The dependent stage is not needed: completing done cannot throw.
        CompletableFuture<?> unusedAll = CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
            .whenComplete((v, e) -> done.complete(null));
        return null;
      });
    } catch (RejectedExecutionException e) {
      done.complete(null);
    }
    return done;
  }

  /**
   * Diagnostics for tests: a copy of the active generation's producer words of {@code pool} (published or not),
   * or null if the pool is not active.
   */
  CompletableFuture<long @Nullable []> producerWords(KvPoolId pool) {
    CompletableFuture<long @Nullable []> out = new CompletableFuture<>();
    control.execute(() -> {
      for (PoolRuntime r : host.runtimes()) {
        if (r.poolId().equals(pool)) {
          CompletableFuture<long[]> reply = new CompletableFuture<>();
          if (r.actor.submit(new PoolCommand.CopyWords(reply)).accepted()) {
            // The dependent stage is not needed: completing out cannot throw.
            CompletableFuture<?> unused = reply.whenComplete((w, e) -> out.complete(w));
          } else {
            out.complete(null);
          }
          return;
        }
      }
      out.complete(null);
    });
    return out;
  }
}
