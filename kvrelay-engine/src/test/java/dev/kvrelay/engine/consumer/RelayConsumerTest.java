package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.actor.ManualScheduler;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelayConsumerTest {
  static final KvPoolDescriptor A = ConsumerFixture.pool(41, 7);
  static final KvPoolDescriptor B = ConsumerFixture.pool(42, 7);
  /** A 12-block request (block size 4) and its block hashes: the exact model of what each pool stores. */
  static final int[] REQUEST = GlobalViewTest.tokens(100, 100 + 4 * 12 - 1);
  static final long[] BLOCKS = blockHashes(REQUEST);

  static long[] blockHashes(int[] tokens) {
    try {
      return TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, 4).blockHashes(tokens);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Two DCs: A holds the first {@code heldA} blocks of the request, B the first {@code heldB}. */
  static ConsumerFixture twoDcs(int heldA, int heldB) {
    ConsumerFixture f = new ConsumerFixture(2);
    f.relay(0).publishCatalog(List.of(A));
    f.relay(0).hub(A.producer()).store(Arrays.copyOf(BLOCKS, heldA), true);
    f.relay(1).publishCatalog(List.of(B));
    f.relay(1).hub(B.producer()).store(Arrays.copyOf(BLOCKS, heldB), true);
    f.start();
    return f;
  }

  static int depth(GlobalViewAnswer a, KvPoolDescriptor pool) {
    return GlobalViewTest.depthOf(a, pool.poolId());
  }

  @Test
  void catalogListingTwoDcsGivesTwoLanesAppliesFramesAndAnswersLikeTheExactModel() {
    ConsumerFixture f = twoDcs(5, 9);
    assertThat(f.view().poolCount()).isEqualTo(2);
    int laneA = f.view().laneOf(A.poolId());
    int laneB = f.view().laneOf(B.poolId());
    assertThat(laneA).isBetween(0, 15);
    assertThat(laneB).isBetween(0, 15).isNotEqualTo(laneA);
    assertThat(f.consumer.replicaStates()).extracting(ReplicaStatus::state)
        .containsOnly(ReplicaState.LIVE);
    f.assertMirrors(A.producer(), f.relay(0));
    f.assertMirrors(B.producer(), f.relay(1));

    GlobalViewAnswer answer = f.consumer.query(REQUEST, "llama");
    assertThat(answer.status()).isEqualTo(GlobalViewAnswer.Status.ANSWERED);
    assertThat(answer.matches()).containsExactlyInAnyOrder(
        new GlobalViewMatch(A.poolId(), laneA, 5, 20), new GlobalViewMatch(B.poolId(), laneB, 9, 36));

    // A delta extends A's chain to 8 blocks.
    long appliedBefore = f.consumer.stats().framesApplied();
    f.relay(0).hub(A.producer()).store(Arrays.copyOfRange(BLOCKS, 5, 8), false);
    f.relay(0).hub(A.producer()).publish();
    f.run();
    assertThat(f.consumer.stats().framesApplied()).isEqualTo(appliedBefore + 1);
    f.assertMirrors(A.producer(), f.relay(0));
    assertThat(depth(f.consumer.query(REQUEST, "llama"), A)).isEqualTo(8);

    // A request diverging after 3 blocks matches min(held, 3) everywhere.
    int[] diverging = REQUEST.clone();
    diverging[3 * 4 + 1] = 999_999;
    GlobalViewAnswer second = f.consumer.query(diverging, "llama");
    assertThat(depth(second, A)).isEqualTo(3);
    assertThat(depth(second, B)).isEqualTo(3);
    assertThat(f.consumer.query(REQUEST, "other-model").status())
        .isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);

    assertThat(f.relay(0).subscriberIds).contains("router-1/catalog", "router-1/readiness", "router-1/load",
        "router-1/ckf");
  }

  @Test
  void poolRemovedFromTheCatalogDropsItsLaneAndStream() {
    ConsumerFixture f = twoDcs(5, 9);
    QueueStream<PoolFrame> streamB = f.relay(1).hub(B.producer()).liveStreams().get(0);
    f.relay(1).publishCatalog(List.of());
    f.run();
    assertThat(f.view().laneOf(B.poolId())).isEqualTo(-1);
    assertThat(f.view().poolCount()).isEqualTo(1);
    assertThat(streamB.isClosed()).isTrue();
    assertThat(f.consumer.replicaStates()).extracting(ReplicaStatus::pool).containsExactly(A.poolId());
    // The new generation rebinds A: it is live again and still answers.
    f.assertMirrors(A.producer(), f.relay(0));
    GlobalViewAnswer a = f.consumer.query(REQUEST, "llama");
    assertThat(a.matches()).extracting(GlobalViewMatch::pool).containsExactly(A.poolId());
    assertThat(depth(a, A)).isEqualTo(5);
  }

  @Test
  void producerIdentityChangeRebuildsTheReplicaOnTheNewKey() {
    ConsumerFixture f = twoDcs(5, 9);
    KvPoolDescriptor a2 = ConsumerFixture.pool(41, 8);
    assertThat(a2.poolId()).isEqualTo(A.poolId());
    f.relay(0).hub(a2.producer()).store(Arrays.copyOf(BLOCKS, 2), true); // the new producer holds 2 blocks
    f.relay(0).publishCatalog(List.of(a2));
    f.quiesce();
    ReplicaStatus s = f.status(A.poolId());
    assertThat(s.producer()).isEqualTo(a2.producer());
    f.assertMirrors(a2.producer(), f.relay(0));
    assertThat(depth(f.consumer.query(REQUEST, "llama"), A)).isEqualTo(2);
    f.assertMirrors(B.producer(), f.relay(1));
  }

  @Test
  void streamErrorInvalidatesOnlyThatReplicaAndResubscribesAfterBackoff() {
    ConsumerFixture f = twoDcs(5, 9);
    int callsA = f.relay(0).subscribeCalls;
    int callsB = f.relay(1).subscribeCalls;
    f.relay(0).hub(A.producer()).liveStreams().get(0)
        .fail(new RelayException(RelayErrorReason.SUBSCRIBER_LAGGED, "lagged"));
    f.run();
    assertThat(f.status(A.poolId()).state()).isEqualTo(ReplicaState.INVALIDATED);
    assertThat(f.status(B.poolId()).state()).isEqualTo(ReplicaState.LIVE);
    assertThat(f.consumer.stats().poolStreamErrors(RelayErrorReason.SUBSCRIBER_LAGGED)).isEqualTo(1);
    GlobalViewAnswer during = f.consumer.query(REQUEST, "llama");
    assertThat(during.matches()).extracting(GlobalViewMatch::pool).containsExactly(B.poolId());
    // Not before the backoff …
    f.scheduler.advance(ConsumerFixture.BACKOFF_INITIAL - 1);
    assertThat(f.relay(0).subscribeCalls).isEqualTo(callsA);
    // … but right after it, and only for A.
    f.scheduler.advance(1);
    assertThat(f.relay(0).subscribeCalls).isEqualTo(callsA + 1);
    assertThat(f.relay(1).subscribeCalls).isEqualTo(callsB);
    assertThat(f.consumer.stats().resubscriptions()).isEqualTo(1);
    f.assertMirrors(A.producer(), f.relay(0));
    assertThat(depth(f.consumer.query(REQUEST, "llama"), A)).isEqualTo(5);
  }

  @Test
  void aBadFrameInvalidatesOnlyThatReplicaWithItsReason() {
    ConsumerFixture f = twoDcs(5, 9);
    PoolFrame heartbeat = PoolFrame.of(f.relay(0).relayIdentity, A.producer(), 0, 0, 3, PoolFrame.Kind.HEARTBEAT,
        new byte[0]);
    f.relay(0).hub(A.producer()).liveStreams().get(0).push(ReplicaFixture.withKind(heartbeat, 9));
    f.run();
    assertThat(f.consumer.stats().invalidations(ReplicaTermination.UNKNOWN_KIND)).isEqualTo(1);
    assertThat(f.status(A.poolId()).state()).isEqualTo(ReplicaState.INVALIDATED);
    assertThat(f.status(B.poolId()).state()).isEqualTo(ReplicaState.LIVE);
    f.quiesce();
    f.assertMirrors(A.producer(), f.relay(0));
  }

  @Test
  void cleanEndOfStreamInvalidatesAndResubscribes() {
    ConsumerFixture f = twoDcs(5, 9);
    f.relay(1).hub(B.producer()).liveStreams().get(0).finish();
    f.run();
    assertThat(f.consumer.stats().invalidations(ReplicaTermination.END_OF_STREAM)).isEqualTo(1);
    f.quiesce();
    f.assertMirrors(B.producer(), f.relay(1));
  }

  @Test
  void invalidRequestOrContractMismatchStopsTheSource() {
    ConsumerFixture f = twoDcs(5, 9);
    f.relay(0).scriptedSubscribeErrors.add(RelayErrorReason.INVALID_REQUEST);
    f.relay(0).hub(A.producer()).liveStreams().get(0)
        .fail(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "gone"));
    f.quiesce();
    assertThat(f.consumer.stats().sourcesStopped()).isEqualTo(1);
    assertThat(f.consumer.stats().poolStreamErrors(RelayErrorReason.INVALID_REQUEST)).isEqualTo(1);
    assertThat(f.view().laneOf(A.poolId())).isEqualTo(-1);
    assertThat(f.relay(0).catalogStreams).allMatch(QueueStream::isClosed);
    int calls = f.relay(0).subscribeCalls;
    f.relay(0).publishCatalog(List.of(A));
    f.quiesce();
    assertThat(f.relay(0).subscribeCalls).isEqualTo(calls); // stopped for good
    f.assertMirrors(B.producer(), f.relay(1));
  }

  @Test
  void relayIdentityChangeOnTheCatalogResetsTheWholeSource() {
    ConsumerFixture f = twoDcs(5, 9);
    int catalogStreams = f.relay(0).catalogStreams.size();
    QueueStream<PoolFrame> oldStream = f.relay(0).hub(A.producer()).liveStreams().get(0);
    CatalogSnapshot before = f.consumer.catalog("dc-0").orElseThrow();
    assertThat(before.identity()).isEqualTo(new RelayIdentity(100, 1));
    assertThat(before.pools()).containsExactly(A);
    assertThat(f.consumer.catalog("no-such-dc")).isEmpty();
    RelayIdentity restarted = new RelayIdentity(100, 2);
    f.relay(0).lastCatalogStream().push(CatalogUpdate.ofDescriptors(restarted, 99, List.of(A)));
    f.run();
    assertThat(f.consumer.stats().catalogRejections()).containsEntry(CatalogError.RELAY_CHANGED, 1L);
    assertThat(f.consumer.stats().reconnects()).isEqualTo(1);
    assertThat(f.view().laneOf(A.poolId())).isEqualTo(-1);
    assertThat(oldStream.isClosed()).isTrue();
    assertThat(f.consumer.readiness("dc-0").orElseThrow().hasRevision()).isFalse();
    assertThat(f.consumer.catalog("dc-0")).as("the reset source has no catalog until its next update").isEmpty();
    assertThat(f.consumer.catalog("dc-1")).as("the other source keeps its catalog").get()
        .extracting(CatalogSnapshot::pools).isEqualTo(List.of(B));
    // After the backoff the source reconnects every stream and rebuilds from the restarted relay.
    f.relay(0).restart(restarted);
    f.relay(0).publishCatalog(List.of(A));
    f.quiesce();
    assertThat(f.relay(0).catalogStreams.size()).isEqualTo(catalogStreams + 1);
    assertThat(f.consumer.catalog("dc-0")).as("the catalog of the restarted relay").get()
        .extracting(CatalogSnapshot::identity).isEqualTo(restarted);
    f.assertMirrors(A.producer(), f.relay(0));
    f.assertMirrors(B.producer(), f.relay(1));
    assertThat(depth(f.consumer.query(REQUEST, "llama"), A)).isEqualTo(5);
  }

  @Test
  void relayIdentityChangeOnAPoolFrameResetsTheWholeSource() {
    ConsumerFixture f = twoDcs(5, 9);
    PoolFrame foreign = PoolFrame.of(new RelayIdentity(100, 3), A.producer(), 0, 0, 3, PoolFrame.Kind.HEARTBEAT,
        new byte[0]);
    f.relay(0).hub(A.producer()).liveStreams().get(0).push(foreign);
    f.run();
    assertThat(f.consumer.stats().invalidations(ReplicaTermination.RELAY_CHANGED)).isEqualTo(1);
    assertThat(f.consumer.stats().reconnects()).isEqualTo(1);
    assertThat(f.view().laneOf(A.poolId())).isEqualTo(-1);
    f.quiesce();
    f.assertMirrors(A.producer(), f.relay(0));
  }

  @Test
  void catalogStreamFailureReconnectsAfterBackoff() {
    ConsumerFixture f = twoDcs(5, 9);
    f.relay(1).lastCatalogStream().fail(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "x"));
    f.run();
    assertThat(f.view().laneOf(B.poolId())).isEqualTo(-1);
    f.scheduler.advance(ConsumerFixture.BACKOFF_INITIAL);
    f.assertMirrors(B.producer(), f.relay(1));
    f.assertMirrors(A.producer(), f.relay(0));
  }

  @Test
  void readinessAndLoadAreKeptPerSourceAndALoadLagReopensOnlyTheLoadStream() {
    ConsumerFixture f = twoDcs(5, 9);
    f.relay(0).publishReadiness(new TopologySnapshot(2,
        List.of(ReadinessViewTest.entry("llama", ServingReadinessState.READY))));
    f.relay(0).publishLoad(new KvPoolLoadUpdate(4, 0, 1_000, List.of(new KvPoolLoadEntry(A.producer(), 3, 10, 1, 1))));
    f.run();
    assertThat(f.consumer.readiness("dc-0").orElseThrow().isReady("prod", "llama")).isTrue();
    assertThat(f.consumer.readiness("dc-1").orElseThrow().isReady("prod", "llama")).isFalse();
    assertThat(f.consumer.load("dc-0").orElseThrow().pool(A.poolId()).orElseThrow().usedBlocks()).hasValue(3);
    assertThat(f.consumer.readiness("nope")).isEmpty();

    int calls = f.relay(0).subscribeCalls;
    int loadStreams = f.relay(0).loadStreams.size();
    f.relay(0).loadStreams.get(loadStreams - 1).fail(new RelayException(RelayErrorReason.SUBSCRIBER_LAGGED, "lag"));
    f.run();
    assertThat(f.consumer.load("dc-0").orElseThrow().hasWindow()).isFalse();
    assertThat(f.consumer.stats().watchErrors()).isEqualTo(1);
    f.scheduler.advance(ConsumerFixture.BACKOFF_INITIAL);
    assertThat(f.relay(0).loadStreams).hasSize(loadStreams + 1);
    assertThat(f.consumer.load("dc-0").orElseThrow().windowSequence()).isEqualTo(4); // the latest window again
    assertThat(f.relay(0).subscribeCalls).isEqualTo(calls); // CKF untouched
    assertThat(f.status(A.poolId()).state()).isEqualTo(ReplicaState.LIVE);

    // A readiness revision going backwards reopens only the readiness stream.
    f.relay(0).readinessStreams.get(f.relay(0).readinessStreams.size() - 1).push(new TopologySnapshot(1, List.of()));
    f.run();
    assertThat(f.consumer.stats().watchErrors()).isEqualTo(2);
    f.scheduler.advance(ConsumerFixture.BACKOFF_INITIAL);
    assertThat(f.consumer.readiness("dc-0").orElseThrow().revision()).isEqualTo(2);
    assertThat(f.relay(0).subscribeCalls).isEqualTo(calls);
  }

  @Test
  void silentReplicaIsInvalidatedAsStaleAndResubscribed() {
    ConsumerFixture f = new ConsumerFixture(1, 1_000_000L); // max-age 1 s
    f.relay(0).publishCatalog(List.of(A));
    f.start();
    f.assertMirrors(A.producer(), f.relay(0));
    f.scheduler.advance(600_000_000L);
    f.relay(0).hub(A.producer()).heartbeat(); // keeps it fresh
    f.scheduler.advance(600_000_000L);
    assertThat(f.consumer.stats().invalidations(ReplicaTermination.STALE)).isZero();
    assertThat(f.consumer.query(REQUEST, "llama").status()).isEqualTo(GlobalViewAnswer.Status.ANSWERED);
    f.scheduler.advance(1_500_000_000L);
    assertThat(f.consumer.stats().invalidations(ReplicaTermination.STALE)).isGreaterThanOrEqualTo(1);
    f.assertMirrors(A.producer(), f.relay(0)); // resubscribed with a fresh snapshot
  }

  @Test
  void poolsOfAnotherDomainAreIgnoredAndTwoSourcesListingOneDcAreRefusedAndCounted() {
    ConsumerFixture f = new ConsumerFixture(2);
    KvPoolDescriptor foreign = GlobalViewTest.descriptor(GlobalViewTest.producer(GlobalViewTest.domain(9), 50, 1,
        GlobalViewTest.FORMAT), GlobalViewTest.STD4, List.of(GlobalViewTest.LLAMA));
    f.relay(0).publishCatalog(List.of(A, foreign));
    f.relay(1).publishCatalog(List.of(A));
    f.start();
    assertThat(f.view().poolCount()).isEqualTo(1);
    assertThat(f.status(A.poolId()).source()).isEqualTo("dc-0");
    assertThat(f.consumer.stats().refusedLanes()).isEqualTo(1);
    f.relay(1).publishCatalog(List.of(A)); // a new revision, same conflict: not counted again
    f.run();
    assertThat(f.consumer.stats().refusedLanes()).isEqualTo(1);
  }

  @Test
  void sameProducerWithOtherQuerySemanticsIsDroppedAndCounted() {
    ConsumerFixture f = twoDcs(5, 9);
    KvPoolDescriptor otherSemantics = GlobalViewTest.descriptor(A.producer(),
        new dev.kvrelay.api.KvQuerySemantics(8, KvQueryHashFormat.DYNAMO_STANDARD_V1), List.of(GlobalViewTest.LLAMA));
    f.relay(0).publishCatalog(List.of(otherSemantics));
    f.quiesce();
    assertThat(f.view().laneOf(A.poolId())).isEqualTo(-1);
    assertThat(f.consumer.stats().refusedLanes()).isEqualTo(1);
    assertThat(f.consumer.replicaStates()).extracting(ReplicaStatus::pool).containsExactly(B.poolId());
    f.relay(0).publishCatalog(List.of(A)); // back to the domain's semantics: assigned again
    f.quiesce();
    f.assertMirrors(A.producer(), f.relay(0));
  }

  @Test
  void closeClosesEveryStream() {
    ConsumerFixture f = twoDcs(5, 9);
    f.consumer.close();
    f.run();
    for (FakeRelay r : f.relays) {
      assertThat(r.catalogStreams).allMatch(QueueStream::isClosed);
      assertThat(r.readinessStreams).allMatch(QueueStream::isClosed);
      assertThat(r.loadStreams).allMatch(QueueStream::isClosed);
      for (FakeRelay.Hub h : r.hubs.values()) {
        assertThat(h.streams).allMatch(QueueStream::isClosed);
      }
    }
    assertThat(f.consumer.replicaStates()).isEmpty();
  }

  @Test
  void builderChecksEveryFieldAndIsSetOnce() {
    assertThatThrownBy(() -> RelayConsumer.builder().build()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("domain missing").hasMessageContaining("at least one source");
    assertThatThrownBy(() -> RelayConsumer.builder().maxAgeUs(1).maxAgeUs(2))
        .isInstanceOf(IllegalStateException.class);
    RelayConsumer.Builder b = RelayConsumer.builder().consumerInstance(1).domain(GlobalViewTest.DOMAIN)
        .format(GlobalViewTest.FORMAT).semantics(GlobalViewTest.STD4).maxAgeUs(1)
        .subscriberIdBase("é".repeat(60)) // 120 UTF-8 bytes
        .scheduler(new ManualScheduler()).clocks(() -> 0, () -> 0)
        .source("a", new FakeRelay(new RelayIdentity(1, 1)));
    assertThatThrownBy(b::build).hasMessageContaining("118 UTF-8 bytes");
    RelayConsumer.Builder ok = RelayConsumer.builder().consumerInstance(1).domain(GlobalViewTest.DOMAIN)
        .format(GlobalViewTest.FORMAT).semantics(GlobalViewTest.STD4).maxAgeUs(1)
        .subscriberIdBase("é".repeat(59)) // 118 bytes
        .scheduler(new ManualScheduler()).clocks(() -> 0, () -> 0);
    assertThatThrownBy(() -> ok.source("a", new FakeRelay(new RelayIdentity(1, 1)))
        .source("a", new FakeRelay(new RelayIdentity(2, 1)))).isInstanceOf(IllegalStateException.class);
    assertThat(ok.build()).isNotNull();
    RelayConsumer.Builder many = RelayConsumer.builder().consumerInstance(1).domain(GlobalViewTest.DOMAIN)
        .format(GlobalViewTest.FORMAT).semantics(GlobalViewTest.STD4).maxAgeUs(1).subscriberIdBase("x\u0007")
        .scheduler(new ManualScheduler()).clocks(() -> 0, () -> 0);
    for (int i = 0; i < 17; i++) {
      many.source("s" + i, new FakeRelay(new RelayIdentity(i, 1)));
    }
    assertThatThrownBy(many::build).hasMessageContaining("at most 16").hasMessageContaining("control character");
  }

  @Test
  void backoffDoublesUpToTheMaxWithEqualJitter() {
    BackoffPolicy p = new BackoffPolicy(100, 500, false);
    assertThat(new long[] {p.baseDelay(1), p.baseDelay(2), p.baseDelay(3), p.baseDelay(4), p.baseDelay(60)})
        .containsExactly(100, 200, 400, 500, 500);
    BackoffPolicy j = new BackoffPolicy(100, 500, true);
    java.util.SplittableRandom r = new java.util.SplittableRandom(1);
    for (int i = 0; i < 1000; i++) {
      assertThat(j.delay(3, r)).isBetween(200L, 400L);
    }
    assertThat(BackoffPolicy.DEFAULT.baseDelay(1)).isEqualTo(100_000_000L);
    assertThat(BackoffPolicy.DEFAULT.baseDelay(100)).isEqualTo(5_000_000_000L);
  }
}
