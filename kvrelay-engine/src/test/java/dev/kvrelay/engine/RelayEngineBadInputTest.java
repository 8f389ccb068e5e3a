package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static dev.kvrelay.engine.RelayHarness.ep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Bad input reaches the engine from every side: it is refused with a type, counted, and no good state is lost. */
@Timeout(60)
class RelayEngineBadInputTest {

  private static RelayEngineStats awaitStats(RelayHarness h, Predicate<RelayEngineStats> condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    RelayEngineStats s = h.engine.stats();
    while (!condition.test(s)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("stats condition not met: " + s);
      }
      Thread.sleep(5);
      h.engine.sync().get(5, TimeUnit.SECONDS);
      s = h.engine.stats();
    }
    return s;
  }

  @Test
  void unknownParent_isACountedSourceFaultThatRejectsTheSourceAndKeepsTheTable() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 11, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(ep("ns/backend/generate"));
      w.cache(0, RelayEngineScenarioTest.prompt(1, 4));
      WireReplica r = h.subscribe(d, "router");
      h.awaitExact(r, d, w::liveCanonicals);
      long[] before = r.words.clone();
      // Stored under a parent the source never stored: ParentBlockNotFound ⇒ RejectSource, no mutation.
      w.emitRaw(0, new KvEventData.Stored(OptionalLong.of(0xDEADL), OptionalLong.empty(),
          List.of(StoredBlock.of(777, 42))));
      RelayEngineStats s = awaitStats(h, x -> x.rejectedSources() >= 1);
      assertThat(s.sourceFaults()).isGreaterThanOrEqualTo(1);
      // RejectSource: the source is ineligible until its identity changes; its later events are dropped, counted.
      // (The rejection reaches the source's recovery asynchronously: actor → control task → recovery.)
      awaitStats(h, x -> x.pools().get(0).recovery().rejectedSources() == 1);
      w.emitRaw(0, new KvEventData.Stored(OptionalLong.empty(), OptionalLong.empty(), List.of(StoredBlock.of(778, 43))));
      awaitStats(h, x -> x.pools().get(0).recovery().rejectedSourceEvents() >= 1);
      h.awaitExact(r, d, w::liveCanonicals);
      assertThat(r.words).isEqualTo(before);
    }
  }

  @Test
  void duplicateBlockIdWithAnotherCanonicalHash_isAnInvalidSequenceFaultAndChangesNothing() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 21, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(ep("ns/backend/generate"));
      w.cache(0, RelayEngineScenarioTest.prompt(1, 3)); // external ids 21 * 1_000_003 + 1 .. + 3
      WireReplica r = h.subscribe(d, "router");
      h.awaitExact(r, d, w::liveCanonicals);
      long[] before = r.words.clone();
      long firstExternal = 21 * 1_000_003L + 1;
      w.emitRaw(0, new KvEventData.Stored(OptionalLong.empty(), OptionalLong.empty(),
          List.of(StoredBlock.of(firstExternal, 0x5151L)))); // same engine block id, different tokens hash
      // The host counts the rejection when it takes the actor's fault; the pool's stats are a separate read, so
      // both are awaited (a clean-clone run once read the pool's counter before it showed the event).
      RelayEngineStats s = awaitStats(h, x -> x.rejectedSources() == 1
          && x.pools().get(0).actor() != null && x.pools().get(0).actor().producer().invalidBlockSequence() >= 1);
      assertThat(s.pools().get(0).actor().producer().invalidBlockSequence()).isEqualTo(1);
      h.awaitExact(r, d, w::liveCanonicals);
      assertThat(r.words).isEqualTo(before);
    }
  }

  @Test
  void malformedEventBytes_areCountedDecodeErrorsAndDeliveryGoesOn() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 12, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(ep("ns/backend/generate"));
      w.publisher(0).publishRaw(new byte[] {(byte) 0xC1, 1, 2, 3});
      w.publisher(0).publishPayload(new byte[] {(byte) 0x93, 1});
      awaitStats(h, x -> x.eventDecodeErrors() >= 2);
      w.cache(0, RelayEngineScenarioTest.prompt(2, 3));
      WireReplica r = h.subscribe(d, "router");
      h.awaitExact(r, d, w::liveCanonicals);
    }
  }

  @Test
  void zeroBlockSizeCard_isNotMaterializedButTheModelIsStillListed() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      h.worker("ns/backend/generate", 13,
          "\"display_name\":\"llama\",\"kv_cache_block_size\":0,\"worker_type\":\"aggregated\"").start();
      h.awaitReadiness(t -> t.entries().size() == 1);
      h.engine.sync().get(5, TimeUnit.SECONDS);
      assertThat(h.engine.catalog().pools()).isEmpty();
      assertThat(h.engine.readiness().entries().get(0).members().get(0).poolId()).isEmpty();
    }
  }

  @Test
  void malformedDiscoveryJson_isRefusedTypedAndChangesNothing() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      h.worker("ns/backend/generate", 14, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(ep("ns/backend/generate"));
      assertThat(h.discovery.putJson(DiscoveryKind.MODEL, "v1/mdc/ns/backend/generate/15", "{not json")).isPresent();
      h.engine.sync().get(5, TimeUnit.SECONDS);
      assertThat(h.engine.catalog().pools()).containsExactly(d);
    }
  }

  @Test
  void badSubscriptions_getTheirReasons() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      h.worker("ns/backend/generate", 16, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(ep("ns/backend/generate"));
      assertThatThrownBy(() -> h.engine.watchCatalog("")).isInstanceOf(RelayException.class)
          .matches(e -> ((RelayException) e).reason() == RelayErrorReason.INVALID_REQUEST);
      assertThatThrownBy(() -> h.engine.watchReadiness("bad\u0007id")).isInstanceOf(RelayException.class)
          .matches(e -> ((RelayException) e).reason() == RelayErrorReason.INVALID_REQUEST);
      assertThat(h.engine.subscribePool(d.poolId(), d.producer(), "x".repeat(129)))
          .failsWithin(5, TimeUnit.SECONDS).withThrowableThat().havingCause()
          .matches(e -> ((RelayException) e).reason() == RelayErrorReason.INVALID_REQUEST);
      dev.kvrelay.api.ProducerIdentity other = new dev.kvrelay.api.ProducerIdentity(d.poolId(),
          d.producer().producerIncarnation() ^ 1, d.producer().layoutGeneration(), d.producer().ckfFormat());
      assertThat(h.engine.subscribePool(d.poolId(), other, "router"))
          .failsWithin(5, TimeUnit.SECONDS).withThrowableThat().havingCause()
          .matches(e -> ((RelayException) e).reason() == RelayErrorReason.PRODUCER_CHANGED);
      dev.kvrelay.api.KvPoolId elsewhere = new dev.kvrelay.api.KvPoolId(d.poolId().indexerDomain(),
          dev.kvrelay.api.DcId.of(12345));
      dev.kvrelay.api.ProducerIdentity missing = new dev.kvrelay.api.ProducerIdentity(elsewhere,
          d.producer().producerIncarnation(), 1, d.producer().ckfFormat());
      assertThat(h.engine.subscribePool(elsewhere, missing, "router"))
          .failsWithin(5, TimeUnit.SECONDS).withThrowableThat().havingCause()
          .matches(e -> ((RelayException) e).reason() == RelayErrorReason.POOL_NOT_FOUND);
    }
  }

  @Test
  void totalPoolStreamLimit_precedesTheCatalogLookup() throws Exception {
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("dc-a").watchAll(true).expectedUniqueBlocks(4096)
        .bind("127.0.0.1:0").maxPoolStreamsTotal(1).build();
    try (RelayHarness h = new RelayHarness(config, true)) {
      h.worker("ns/backend/generate", 17, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(ep("ns/backend/generate"));
      WireReplica first = h.subscribe(d, "one");
      dev.kvrelay.api.KvPoolId elsewhere = new dev.kvrelay.api.KvPoolId(d.poolId().indexerDomain(),
          dev.kvrelay.api.DcId.of(99));
      dev.kvrelay.api.ProducerIdentity missing = new dev.kvrelay.api.ProducerIdentity(elsewhere,
          d.producer().producerIncarnation(), 1, d.producer().ckfFormat());
      // wan-grpc.md §2.1: with the pool-stream limit full even an unknown pool gets RESOURCE_LIMIT.
      assertThat(h.engine.subscribePool(elsewhere, missing, "two"))
          .failsWithin(5, TimeUnit.SECONDS).withThrowableThat().havingCause()
          .matches(e -> ((RelayException) e).reason() == RelayErrorReason.RESOURCE_LIMIT)
          .withMessageContaining("Relay total pool stream limit 1 reached");
      first.stream.close();
      WireReplica again = h.subscribe(d, "three");
      h.awaitConverged(again, d.poolId());
    }
  }
}
