package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static dev.kvrelay.engine.RelayHarness.ep;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * wan-grpc.md §3.3 "Terminal failure" / §9 C40, C42 at engine level: a terminal hub failure (here an injected
 * snapshot-encoder panic) fences the generation; its catalog entry and load entry are withdrawn and a new
 * generation follows; a cancelled encoder fences nothing.
 */
class HubFaultScenarioTest {
  private static final DynamoEndpointId AGG = ep("ns/backend/generate");
  private static final long WAIT_MS = RelayHarness.DEADLINE_MS;

  private static RelayHarness harness() throws Exception {
    return new RelayHarness(RelayEngineConfig.builder().dcId("dc-a").watchAll(true).expectedUniqueBlocks(4096)
        .bind("127.0.0.1:0").loadWindowMs(10).build(), true); // bind: only to allow the WAN tuning key
  }

  /** Polls until the stream ends; returns its reason. */
  private static RelayErrorReason awaitEnd(RelayStream<PoolFrame> s) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
    while (System.nanoTime() < deadline) {
      try {
        s.poll(100, TimeUnit.MILLISECONDS);
      } catch (RelayException e) {
        return e.reason();
      }
    }
    throw new AssertionError("stream did not end in time");
  }

  private static boolean hasEntry(KvPoolLoadUpdate u, ProducerIdentity producer) {
    return u.pools().stream().map(KvPoolLoadEntry::producer).anyMatch(producer::equals);
  }

  /** The first window within the deadline for which {@code hit} holds. */
  private static KvPoolLoadUpdate awaitWindow(RelayStream<KvPoolLoadUpdate> load,
      java.util.function.Predicate<KvPoolLoadUpdate> hit) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
    while (System.nanoTime() < deadline) {
      KvPoolLoadUpdate u = load.poll(100, TimeUnit.MILLISECONDS);
      if (u != null && hit.test(u)) {
        return u;
      }
    }
    throw new AssertionError("no matching load window in time");
  }

  @Test
  void c42_terminalHubFailureWithdrawsCatalogAndLoadAndANewGenerationFollows() throws Exception {
    try (RelayHarness h = harness()) {
      SimWorker w = h.worker("ns/backend/generate", 71, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(AGG);
      RelayStream<KvPoolLoadUpdate> load = h.engine.watchPoolLoad("loader");
      w.reportLoad(0, 5);
      awaitWindow(load, u -> hasEntry(u, d.producer()));
      load.close();

      EngineFaults.panicSnapshotEncoder(h.engine, 0);
      RelayStream<PoolFrame> s = h.engine.subscribePool(d.poolId(), d.producer(), "router")
          .get(WAIT_MS, TimeUnit.MILLISECONDS);
      assertThat(awaitEnd(s)).isEqualTo(RelayErrorReason.INTERNAL);
      EngineFaults.restoreSnapshotEncoder(h.engine);

      KvPoolDescriptor next = h.awaitCatalog(c -> RelayHarness.find(c, AGG)
          .filter(p -> !p.producer().equals(d.producer())).isPresent()).pools().get(0);
      assertThat(h.engine.catalog().pools()).extracting(KvPoolDescriptor::producer)
          .as("the fenced generation is withdrawn").doesNotContain(d.producer());
      assertThat(next.poolId()).isEqualTo(d.poolId());
      assertThat(Long.compareUnsigned(next.layoutGeneration(), d.layoutGeneration())).isPositive();
      // load: every window built after the withdrawal lacks the fenced generation; the new one appears
      RelayStream<KvPoolLoadUpdate> load2 = h.engine.watchPoolLoad("loader-2");
      KvPoolLoadUpdate first = awaitWindow(load2, u -> true); // may predate the withdrawal
      w.reportLoad(0, 6);
      KvPoolLoadUpdate after = awaitWindow(load2, u -> {
        assertThat(hasEntry(u, d.producer())).as("window %d", u.windowSequence()).isFalse();
        return hasEntry(u, next.producer());
      });
      assertThat(after.windowSequence()).isGreaterThan(first.windowSequence());
      load2.close();

      RelayEngineStats st = h.engine.stats();
      assertThat(st.hubFaults()).isEqualTo(1);
      assertThat(st.fencedRetirements()).isEqualTo(1);
      assertThat(st.hubs().faults()).isEqualTo(1);
      WireReplica r = h.subscribe(next, "router-2");
      h.awaitConverged(r, next.poolId());
    }
  }

  @Test
  void c40_aCancelledEncoderEndsTheStreamUnavailableAndFencesNothing() throws Exception {
    try (RelayHarness h = harness()) {
      h.worker("ns/backend/generate", 71, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(AGG);
      EngineFaults.cancelSnapshotEncoder(h.engine);
      RelayStream<PoolFrame> s = h.engine.subscribePool(d.poolId(), d.producer(), "router")
          .get(WAIT_MS, TimeUnit.MILLISECONDS);
      assertThat(awaitEnd(s)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
      EngineFaults.restoreSnapshotEncoder(h.engine);
      WireReplica r = h.subscribe(d, "router-2");
      h.awaitConverged(r, d.poolId());
      assertThat(h.engine.catalog().pools()).extracting(KvPoolDescriptor::producer).containsExactly(d.producer());
      RelayEngineStats st = h.engine.stats();
      assertThat(st.hubFaults()).isZero();
      assertThat(st.fencedRetirements()).isZero();
      assertThat(st.hubs().encoderCancellations()).isEqualTo(1);
    }
  }
}
