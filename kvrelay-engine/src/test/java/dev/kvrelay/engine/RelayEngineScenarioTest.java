package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHarness.card;
import static dev.kvrelay.engine.RelayHarness.ep;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.PackedBucket;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * End-to-end scenarios on the in-memory SPIs: discovery cards → pools → actors → hubs → an independent wire
 * consumer. Expected catalog and readiness values come from producer.md §4 and the §5.6 worked examples.
 */
@Timeout(60)
class RelayEngineScenarioTest {
  static final DynamoEndpointId AGG = ep("ns/backend/generate");
  static final DynamoEndpointId PREFILL = ep("ns/prefill/generate");
  static final DynamoEndpointId DECODE = ep("ns/decode/generate");
  static final DynamoEndpointId ENCODE = ep("ns/encode/generate");

  static int[] prompt(int seed, int blocks) {
    int[] t = new int[blocks * 16];
    for (int i = 0; i < t.length; i++) {
      t[i] = seed * 100_003 + i;
    }
    return t;
  }

  /** Every canonical hash of the exact model is present in {@code words}, and no more slots are used. */
  static void assertHolds(long[] words, CkfFormat format, Set<Long> canonicals) {
    CkfAddressing addressing = CkfAddressing.of(format);
    for (long h : canonicals) {
      long p = addressing.prepare(h);
      int fp = CkfAddressing.fingerprint(p);
      boolean found = PackedBucket.contains(words[CkfAddressing.bucketA(p)], fp)
          || PackedBucket.contains(words[CkfAddressing.bucketB(p)], fp);
      assertThat(found).as("canonical %s resident", Long.toUnsignedString(h)).isTrue();
    }
    int occupied = 0;
    for (long w : words) {
      occupied += PackedBucket.occupancy(w);
    }
    assertThat(occupied).as("one fingerprint per resident canonical hash").isEqualTo(canonicals.size());
  }

  static Set<Long> union(SimWorker... workers) {
    Set<Long> all = new HashSet<>();
    for (SimWorker w : workers) {
      all.addAll(w.liveCanonicals());
    }
    return all;
  }

  static TopologyEntry entry(TopologySnapshot t, String namespace, String model) {
    return t.entries().stream().filter(e -> e.namespace().equals(namespace) && e.canonicalModelId().equals(model))
        .findFirst().orElseThrow(() -> new AssertionError("no entry " + namespace + "/" + model + " in " + t));
  }

  @Test
  void aggregated_poolIsCataloguedReadyAndReplicatedThroughSnapshotAndDeltas() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 11, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(AGG);
      // producer.md §1.5 and §4: identity and descriptor of a fresh relay's first attach.
      assertThat(d.producer().layoutGeneration()).isEqualTo(1);
      assertThat(d.producer().producerIncarnation()).isEqualTo(h.engine.identity().relayIncarnation());
      assertThat(d.producer().ckfFormat()).isEqualTo(CkfFormat.withDefaultSeed(2048));
      assertThat(d.producer().poolId().dcId()).isEqualTo(h.engine.config().dcId());
      assertThat(d.registrations()).containsExactly(new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of()));
      assertThat(d.poolRoles()).containsExactly(WorkerRole.AGGREGATED);
      assertThat(d.querySemantics()).isEqualTo(new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1));
      TopologySnapshot t = h.awaitReadiness(s -> !s.entries().isEmpty()
          && s.entries().get(0).state() == ServingReadinessState.READY);
      TopologyEntry e = entry(t, "ns", "llama");
      assertThat(e.presentRoles()).containsExactly(WorkerRole.AGGREGATED);
      assertThat(e.members()).extracting(TopologyMember::poolId).containsExactly(Optional.of(d.poolId()));

      for (int i = 0; i < 5; i++) {
        w.cache(0, prompt(i, 4));
      }
      WireReplica r = h.subscribe(d, "router-a");
      r.apply(r.stream.poll(5, TimeUnit.SECONDS));
      assertThat(r.snapshotChunks).isEqualTo(1);
      assertThat(r.sequence).as("decision: wire sequences restart at 0 per lease").isZero();
      h.awaitExact(r, d, () -> union(w));

      for (int i = 5; i < 40; i++) {
        w.cache(0, prompt(i, 3));
      }
      w.evictLeaves(0, 10);
      h.awaitExact(r, d, () -> union(w));
      assertThat(r.deltas).isPositive();
    }
  }

  @Test
  void prefillDecode_workedExample_twoPoolsOneReadyEntryWithLinkedMembers() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker p = h.worker("ns/prefill/generate", 21, card("llama", "prefill", "[[\"decode\"]]", 0, 1)).start();
      SimWorker dw = h.worker("ns/decode/generate", 22, card("llama", "decode", "[[\"prefill\"]]", 0, 1)).start();
      CatalogSnapshot c = h.awaitCatalog(s -> s.pools().size() == 2);
      KvPoolDescriptor pp = RelayHarness.find(c, PREFILL).orElseThrow();
      KvPoolDescriptor dp = RelayHarness.find(c, DECODE).orElseThrow();
      assertThat(pp.poolRoles()).containsExactly(WorkerRole.PREFILL);
      assertThat(dp.poolRoles()).containsExactly(WorkerRole.DECODE);
      assertThat(pp.poolId()).isNotEqualTo(dp.poolId()); // routing scope = the serving endpoint triple
      TopologyEntry e = entry(h.awaitReadiness(s -> s.entries().size() == 1
          && s.entries().get(0).state() == ServingReadinessState.READY), "ns", "llama");
      assertThat(e.presentRoles()).containsExactly(WorkerRole.PREFILL, WorkerRole.DECODE);
      assertThat(e.missingRoles()).isEmpty();
      assertThat(e.members()).extracting(TopologyMember::endpoint).containsExactly(DECODE, PREFILL);
      assertThat(e.members()).extracting(TopologyMember::poolId)
          .containsExactly(Optional.of(dp.poolId()), Optional.of(pp.poolId()));

      p.cache(0, prompt(1, 4));
      dw.cache(0, prompt(1, 6));
      WireReplica rp = h.subscribe(pp, "router-p");
      WireReplica rd = h.subscribe(dp, "router-d");
      h.awaitExact(rp, pp, () -> union(p));
      h.awaitExact(rd, dp, () -> union(dw));

      // worked example "P + D, only prefill live": the decode worker dies.
      dw.die();
      TopologyEntry after = entry(h.awaitReadiness(s -> s.entries().size() == 1
          && s.entries().get(0).state() == ServingReadinessState.UNAVAILABLE), "ns", "llama");
      assertThat(after.missingRoles()).containsExactly(WorkerRole.DECODE);
      h.awaitCatalog(s -> s.pools().size() == 1 && RelayHarness.find(s, PREFILL).isPresent());
    }
  }

  @Test
  void encodePrefillDecode_workedExample_encodeHasNoPoolAndGatesReadiness() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      h.worker("ns/prefill/generate", 31, card("llama", "prefill", "[[\"decode\"]]", 0, 1)).start();
      h.worker("ns/decode/generate", 32, card("llama", "decode", "[[\"prefill\"]]", 0, 1)).start();
      // The encode worker publishes a card but no KV events: no active source, so no pool.
      h.discovery.put(SimWorker.record(new dev.kvrelay.spi.discovery.ModelKey(ENCODE, 33, null),
          card("llama", "encode", "[[\"prefill\",\"decode\"],[\"aggregated\"]]", 0, 1)));
      h.discovery.put(new dev.kvrelay.spi.discovery.EndpointRecord(
          new dev.kvrelay.spi.discovery.EndpointKey(ENCODE, 33),
          new dev.kvrelay.spi.discovery.Transport.Tcp("127.0.0.1:9/33"), "json", null));
      TopologyEntry e = entry(h.awaitReadiness(s -> s.entries().size() == 1
          && s.entries().get(0).members().size() == 3
          && s.entries().get(0).state() == ServingReadinessState.READY), "ns", "llama");
      TopologyMember encode = e.members().stream().filter(m -> m.endpoint().equals(ENCODE)).findFirst().orElseThrow();
      assertThat(encode.roles()).containsExactly(WorkerRole.ENCODE);
      assertThat(encode.poolId()).isEmpty();
      assertThat(h.engine.catalog().pools()).hasSize(2);
      // Encode availability → empty ⇒ UNAVAILABLE, missing = [encode].
      h.discovery.remove(new dev.kvrelay.spi.discovery.EndpointKey(ENCODE, 33));
      TopologyEntry down = entry(h.awaitReadiness(s -> s.entries().size() == 1
          && s.entries().get(0).state() == ServingReadinessState.UNAVAILABLE), "ns", "llama");
      assertThat(down.missingRoles()).containsExactly(WorkerRole.ENCODE);
    }
  }

  @Test
  void loraAdapter_isRegisteredOnItsBasePoolAndReadyWithTheBase() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 41, card("llama", "aggregated", null, 0, 1));
      w.start();
      w.adapter("llama-sql", "sql-lora-v2");
      KvPoolDescriptor d = h.awaitCatalog(s -> s.pools().size() == 1 && s.pools().get(0).registrations().size() == 2)
          .pools().get(0);
      assertThat(d.registrations()).containsExactly(
          new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of()),
          new ModelRegistration("llama-sql", new ModelTarget.Lora("llama", "sql-lora-v2"), List.of()));
      long generation = d.producer().layoutGeneration();
      TopologyEntry e = entry(h.awaitReadiness(s -> s.entries().size() == 1
          && s.entries().get(0).state() == ServingReadinessState.READY
          && s.entries().get(0).adapters().size() == 1), "ns", "llama");
      assertThat(e.adapters().get(0).canonicalModelId()).isEqualTo("llama-sql");
      assertThat(e.adapters().get(0).state()).isEqualTo(ServingReadinessState.READY);
      // A registration change keeps the producer identity (wan-grpc.md §2.7): no resubscribe needed.
      assertThat(d.producer().layoutGeneration()).isEqualTo(generation);
      h.discovery.remove(new dev.kvrelay.spi.discovery.ModelKey(AGG, 41, "llama-sql"));
      KvPoolDescriptor after = h.awaitCatalog(s -> s.pools().size() == 1
          && s.pools().get(0).registrations().size() == 1).pools().get(0);
      assertThat(after.producer()).isEqualTo(d.producer());
    }
  }

  @Test
  void legacyCards_poolRoleLegacyAndLegacyFallbackReadiness() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      h.worker("ns/backend/generate", 51, card("llama", null, null, 0, 1)).start();
      KvPoolDescriptor d = h.pool(AGG);
      assertThat(d.poolRoles()).containsExactly(WorkerRole.LEGACY);
      TopologyEntry e = entry(h.awaitReadiness(s -> s.entries().size() == 1
          && s.entries().get(0).state() == ServingReadinessState.READY), "ns", "llama");
      assertThat(e.legacyFallbackActive()).isTrue();
      assertThat(e.missingRoles()).isEmpty();
    }
  }

  @Test
  void dataParallelRanks_eachRankIsOneSourceAndLoadCoversEveryRank() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 61, card("llama", "aggregated", null, 0, 4), 0, 4, true, null)
          .start();
      KvPoolDescriptor d = h.pool(AGG);
      for (int rank = 0; rank < 4; rank++) {
        w.cache(rank, prompt(rank, 3));
        w.cache(rank, prompt(100, 2)); // the same prompt on every rank: one resident fingerprint per block
      }
      WireReplica r = h.subscribe(d, "router");
      h.awaitExact(r, d, () -> union(w));
      w.clear(2);
      h.awaitExact(r, d, () -> union(w));

      RelayStream<KvPoolLoadUpdate> load = h.engine.watchPoolLoad("loader");
      for (int rank = 0; rank < 4; rank++) {
        w.reportLoad(rank, 10 + rank);
      }
      KvPoolLoadEntry entry = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline) {
        KvPoolLoadUpdate u = load.poll(100, TimeUnit.MILLISECONDS);
        if (u != null && !u.pools().isEmpty() && u.pools().get(0).kvObservedRanks() == 4) {
          entry = u.pools().get(0);
          break;
        }
      }
      assertThat(entry).as("a window with all 4 ranks observed").isNotNull();
      assertThat(entry.producer()).isEqualTo(d.producer());
      assertThat(entry.kvExpectedRanks()).isEqualTo(4);
      assertThat(entry.kvUsedBlocks()).isEqualTo(10 + 11 + 12 + 13);
      assertThat(entry.totalKvBlocks()).isEqualTo(4_000);
      load.close();
    }
  }

  @Test
  void workerDeathAndReturn_poolDematerializesAndReturnsWithANewLayoutGeneration() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 71, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor first = h.pool(AGG);
      w.cache(0, prompt(1, 4));
      WireReplica r = h.subscribe(first, "router");
      h.awaitExact(r, first, () -> union(w));

      RelayStream<CatalogUpdate> catalog = h.engine.watchCatalog("catalog-watcher");
      w.die();
      h.awaitCatalog(s -> s.pools().isEmpty());
      // Coalescing keeps only the latest value per watcher, so the removal revision is the one it sees now.
      CatalogUpdate removal = null;
      CatalogUpdate u0;
      while ((u0 = catalog.poll(1, TimeUnit.SECONDS)) != null) {
        removal = u0;
        if (u0.pools().isEmpty()) {
          break;
        }
      }
      assertThat(removal).isNotNull();
      assertThat(removal.pools()).isEmpty();
      // The old generation's stream ends with PUBLICATION_UNAVAILABLE (withdrawal, wan-grpc.md §3.3).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (r.ended == null && System.nanoTime() < deadline) {
        r.drain();
        Thread.sleep(2);
      }
      assertThat(r.ended).isNotNull();
      assertThat(r.ended.reason()).isEqualTo(dev.kvrelay.api.RelayErrorReason.PUBLICATION_UNAVAILABLE);

      w.restart();
      KvPoolDescriptor second = h.pool(AGG);
      assertThat(second.poolId()).isEqualTo(first.poolId());
      assertThat(Long.compareUnsigned(second.producer().layoutGeneration(), first.producer().layoutGeneration()))
          .isPositive();
      assertThat(second.producer()).isNotEqualTo(first.producer());
      // Subscribing with the old identity is refused with PRODUCER_CHANGED.
      assertThat(h.engine.subscribePool(first.poolId(), first.producer(), "stale"))
          .failsWithin(5, TimeUnit.SECONDS).withThrowableThat()
          .havingCause().isInstanceOf(dev.kvrelay.api.RelayException.class)
          .matches(x -> ((dev.kvrelay.api.RelayException) x).reason()
              == dev.kvrelay.api.RelayErrorReason.PRODUCER_CHANGED);
      w.cache(0, prompt(2, 4));
      WireReplica r2 = h.subscribe(second, "router");
      h.awaitExact(r2, second, () -> union(w));

      // After the removal revision the watcher sees the new generation; revisions never go back.
      long lastRevision = removal.revision();
      boolean sawSecond = false;
      CatalogUpdate u;
      while ((u = catalog.poll()) != null) {
        assertThat(Long.compareUnsigned(u.revision(), lastRevision)).isPositive();
        lastRevision = u.revision();
        sawSecond |= u.pools().size() == 1
            && u.pools().get(0).producer().poolId().dcId() == second.producer().poolId().dcId().value()
            && u.pools().get(0).producer().layoutGeneration() == second.producer().layoutGeneration();
      }
      assertThat(sawSecond).isTrue();
      catalog.close();
    }
  }

  @Test
  void relayRestart_newIncarnationGivesNewProducerIdentitiesAndTheSamePoolIds() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 81, card("llama", "aggregated", null, 0, 1)).start();
      KvPoolDescriptor before = h.pool(AGG);
      w.cache(0, prompt(3, 5));
      long drt = h.engine.identity().drtInstanceId();
      long incarnation = h.engine.identity().relayIncarnation();
      h.restart();
      assertThat(h.engine.identity().relayIncarnation()).isNotEqualTo(incarnation);
      KvPoolDescriptor after = h.pool(AGG);
      assertThat(after.poolId()).isEqualTo(before.poolId());
      assertThat(after.producer().producerIncarnation()).isEqualTo(h.engine.identity().relayIncarnation());
      assertThat(after.producer()).isNotEqualTo(before.producer());
      assertThat(after.producer().layoutGeneration()).as("layout generations restart per relay lifetime").isEqualTo(1);
      // The new relay recovers the worker's cache through a tree dump: nothing is lost across the restart.
      WireReplica r = h.subscribe(after, "router");
      h.awaitExact(r, after, () -> union(w));
      // producer.md §1.1: drt_instance_id stays constant across in-process restarts (decision (b): one random 53-bit
      // id per process when none is configured); only the incarnation changes.
      assertThat(h.engine.identity().drtInstanceId()).isEqualTo(drt);
      assertThat(drt).isBetween(0L, 0x001F_FFFF_FFFF_FFFFL);
    }
  }

  @Test
  void liveOnlySource_resetsItsRankOnTheFirstEventAndOnAGapThenRelearnsFromLaterEvents() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      SimWorker w = h.worker("ns/backend/generate", 95, card("llama", "aggregated", null, 0, 1), 0, 1, false, null)
          .start();
      KvPoolDescriptor d = h.pool(AGG);
      w.cache(0, prompt(1, 3));
      w.cache(0, prompt(2, 2));
      WireReplica r = h.subscribe(d, "router");
      h.awaitExact(r, d, () -> union(w));
      w.loseNextEvent(0);
      w.cache(0, prompt(3, 2)); // lost on the wire: a live-only source cannot recover it
      long[] after = w.cache(0, prompt(4, 2)); // the gap: the rank is reset and re-learned from this event on
      Set<Long> relearned = new HashSet<>();
      for (long c : after) {
        relearned.add(c);
      }
      h.awaitExact(r, d, () -> relearned);
      PoolStats p = h.engine.stats().pools().get(0);
      assertThat(p.recovery().liveOnlyResets()).as("first event and gap").isEqualTo(2);
      assertThat(p.recovery().queries()).isZero();
      assertThat(p.recovery().gaps()).isEqualTo(1);
    }
  }

  @Test
  void servingLoad_listsEveryCatalogPoolWithItsDeploymentAndEachModelWithItsServingPools() throws Exception {
    try (RelayHarness h = new RelayHarness()) {
      RelayStream<dev.kvrelay.engine.wire.ServingLoadUpdate> stream = h.engine.watchServingLoad("serving-watcher");
      dev.kvrelay.engine.wire.ServingLoadUpdate first = stream.poll(5, TimeUnit.SECONDS);
      assertThat(first.windowSequence()).as("the startup window").isZero();
      assertThat(first.pools()).as("§4.2: the initial window is empty").isEmpty();
      h.worker("ns/backend/generate", 97, card("llama", "aggregated", null, 0, 2), 0, 2, true, null).start();
      KvPoolDescriptor d = h.pool(AGG);
      dev.kvrelay.engine.wire.ServingLoadUpdate u = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline) {
        dev.kvrelay.engine.wire.ServingLoadUpdate next = stream.poll(200, TimeUnit.MILLISECONDS);
        if (next != null && next.pools().size() == 1) {
          u = next;
          break;
        }
      }
      assertThat(u).as("a window listing the pool").isNotNull();
      dev.kvrelay.engine.wire.PoolServingLoad pool = u.pools().get(0);
      assertThat(pool.producer()).isEqualTo(d.producer());
      // §4.2 tested fact: a pool without router reports is UNAVAILABLE with unset active fields.
      assertThat(pool.load().status()).isEqualTo(dev.kvrelay.engine.wire.DataStatus.UNAVAILABLE);
      assertThat(pool.load().tokens().activePrefillTokens()).isEmpty();
      assertThat(pool.deployment().liveWorkers()).hasValue(1);
      assertThat(u.models()).hasSize(1);
      assertThat(u.models().get(0).canonicalModelId()).isEqualTo("llama");
      assertThat(u.models().get(0).deployment().servingPools()).containsExactly(d.poolId());
      stream.close();
    }
  }

  @Test
  void relayShutdown_publishesAnEmptyCatalogAndEndsStreams() throws Exception {
    RelayHarness h = new RelayHarness();
    SimWorker w = h.worker("ns/backend/generate", 91, card("llama", "aggregated", null, 0, 1)).start();
    KvPoolDescriptor d = h.pool(AGG);
    w.cache(0, prompt(9, 2));
    WireReplica r = h.subscribe(d, "router");
    h.awaitConverged(r, d.poolId());
    RelayStream<CatalogUpdate> catalog = h.engine.watchCatalog("watcher");
    h.close();
    assertThat(h.engine.terminated()).isCompleted();
    CatalogUpdate last = null;
    CatalogUpdate u;
    while ((u = catalog.poll()) != null) {
      last = u;
    }
    assertThat(last).isNotNull();
    assertThat(last.pools()).isEmpty();
    assertThat(catalog.isFinished()).isTrue();
    r.drain();
    assertThat(r.ended).isNotNull();
    assertThat(r.ended.reason()).isEqualTo(dev.kvrelay.api.RelayErrorReason.PUBLICATION_UNAVAILABLE);
  }
}
