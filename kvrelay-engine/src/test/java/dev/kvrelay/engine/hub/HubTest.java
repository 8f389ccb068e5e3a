package dev.kvrelay.engine.hub;

import static dev.kvrelay.engine.hub.HubFixture.drain;
import static dev.kvrelay.engine.hub.HubFixture.open;
import static dev.kvrelay.engine.hub.HubFixture.pollError;
import static dev.kvrelay.engine.hub.HubFixture.refusal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.ckf.cbi1.Cbi1;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.WireReplica;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HubTest {

  @Test
  void settingsFromConfigTakeTheSpecDefaults() throws Exception {
    HubSettings s = HubSettings.from(RelayEngineConfig.builder().dcId("dc-a").build());
    assertThat(s).isEqualTo(new HubSettings(16, 16_777_216L, 10_000, 60_000, 64, 64, 2));
    assertThat(RelayConfigKey.PUBLICATION_QUEUE_BYTES.defaultValue()).isEqualTo(16_777_216L);
  }

  @Test
  void subscriberGetsSnapshotThenContiguousDeltasMatchingTheProducer() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    a.store(1, 5);
    RelayStream<PoolFrame> s = open(fx, a, "sub-1");
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    assertThat(drain(s, r)).isEqualTo(1);
    HubFixture.assertSameWords(r.words, a.words());
    for (int i = 0; i < 5; i++) {
      a.store(2, 3);
      a.publish();
    }
    assertThat(drain(s, r)).isEqualTo(5);
    assertThat(r.sequence).isEqualTo(5);
    HubFixture.assertSameWords(r.words, a.words());
    assertThat(fx.registry.stats().deltasEncoded()).isEqualTo(5);
    assertThat(fx.registry.stats().openStreams()).isEqualTo(1);
  }

  @Test
  void eachDeltaIsEncodedOnceAndTheSameFrameGoesToEverySubscriber() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> s1 = open(fx, a, "one");
    RelayStream<PoolFrame> s2 = open(fx, a, "two");
    s1.poll();
    s2.poll();
    a.store(1, 4);
    a.publish();
    PoolFrame f1 = s1.poll();
    PoolFrame f2 = s2.poll();
    assertThat(f1).isSameAs(f2);
    assertThat(fx.registry.stats().deltasEncoded()).isEqualTo(1);
  }

  @Test
  void decisionWireSequencesRestartAtZeroPerLeaseAfterIdleEviction() throws Exception {
    // wan-grpc §2.5 "Upstream variants — sequence restart after idle eviction": follow restart at 0.
    HubFixture fx = new HubFixture(HubFixture.settings(16, 16_777_216L, 1));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    RelayStream<PoolFrame> sa = open(fx, a, "a");
    WireReplica ra = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    for (int i = 0; i < 3; i++) {
      a.store(1, 2);
      a.publish();
    }
    drain(sa, ra);
    assertThat(ra.sequence).isEqualTo(3);
    sa.close();
    // idle hub keeps applying deltas (actor sequence 3 -> 5)
    for (int i = 0; i < 2; i++) {
      a.store(1, 2);
      a.publish();
    }
    assertThat(fx.registry.stats().idleDeltasApplied()).isEqualTo(2);
    long leaseA1 = a.subscribedLeases.get(0);
    RelayStream<PoolFrame> sb = open(fx, b, "b");
    assertThat(a.retiredLeases).containsExactly(leaseA1);
    assertThat(a.slot.isInitialized()).isFalse();
    assertThat(fx.registry.stats().evictions()).isEqualTo(1);
    sb.close();
    RelayStream<PoolFrame> sa2 = open(fx, a, "a2");
    assertThat(a.subscribedLeases).hasSize(2);
    assertThat(a.subscribedLeases.get(1)).isNotEqualTo(leaseA1);
    WireReplica ra2 = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(sa2, ra2);
    assertThat(ra2.snapshotSequence).isZero();
    assertThat(a.producer.lastSequence()).isEqualTo(5);
    HubFixture.assertSameWords(ra2.words, a.words());
    a.store(1, 2);
    a.publish();
    PoolFrame d = sa2.poll();
    assertThat(d.kind()).isEqualTo(PoolFrame.Kind.DELTA);
    assertThat(d.baseSequence()).isZero();
    assertThat(d.sequence()).isEqualTo(1);
    ra2.apply(d);
    HubFixture.assertSameWords(ra2.words, a.words());
  }

  @Test
  void initializedHubCapRefusesResourceLimitWhenNoIdleVictim() throws Exception {
    HubFixture fx = new HubFixture(HubFixture.settings(16, 16_777_216L, 1));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    RelayStream<PoolFrame> sa = open(fx, a, "a");
    assertThat(refusal(fx.registry.subscribe(b.identity.poolId(), b.identity, "b")))
        .isEqualTo(RelayErrorReason.RESOURCE_LIMIT);
    assertThat(a.retiredLeases).isEmpty();
    assertThat(fx.registry.stats().refusedResourceLimit()).isEqualTo(1);
    assertThat(fx.registry.stats().initializedHubs()).isEqualTo(1);
    sa.close();
    open(fx, b, "b");
    assertThat(fx.registry.stats().evictions()).isEqualTo(1);
  }

  @Test
  void aMirrorPinnedByABootstrappingStreamIsNotEvicted() throws Exception {
    HubFixture fx = new HubFixture(new HubSettings(16, 16_777_216L, 10_000, 60_000, 64, 1, 1));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    HubFixture.Pool c = fx.pool(43);
    // a: stream holding the only encoding permit; b cannot be opened meanwhile (hub cap 1)
    RelayStream<PoolFrame> sa = open(fx, a, "a");
    assertThat(refusal(fx.registry.subscribe(b.identity.poolId(), b.identity, "b")))
        .isEqualTo(RelayErrorReason.RESOURCE_LIMIT);
    sa.poll();
    sa.close();
    assertThat(a.slot.pinned()).isFalse();
    open(fx, c, "c");
    assertThat(a.retiredLeases).hasSize(1);
  }

  @Test
  void lagByMessageCountRemovesOnlyTheSlowSubscriber() throws Exception {
    HubFixture fx = new HubFixture(HubFixture.settings(2, 16_777_216L, 4));
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> slow = open(fx, a, "slow");
    RelayStream<PoolFrame> fast = open(fx, a, "fast");
    WireReplica rf = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(fast, rf);
    for (int i = 0; i < 3; i++) {
      a.store(1, 1);
      a.publish();
      drain(fast, rf);
    }
    assertThat(pollError(slow)).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
    assertThat(slow.isFinished()).isTrue();
    assertThat(a.slot.subscriberCount()).isEqualTo(1);
    assertThat(fx.registry.stats().lagged()).isEqualTo(1);
    HubFixture.assertSameWords(rf.words, a.words());
    assertThat(fast.isFinished()).isFalse();
  }

  @Test
  void lagByBytesCountsPayloadPlus256PerFrameAndIsCheckedBeforeTheCount() throws Exception {
    long budget = 2_000;
    HubFixture fx = new HubFixture(HubFixture.settings(100, budget, 4));
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> slow = open(fx, a, "slow");
    slow.poll(); // snapshot taken; deltas now queue
    long queued = 0;
    int accepted = 0;
    for (int i = 0; i < 50; i++) {
      a.store(1, 3);
      CkfPublication p = a.publish();
      long cost = 48 + 12 + 12L * ((CkfDelta) p).imageCount() + 256;
      if (queued + cost > budget) {
        break;
      }
      queued += cost;
      accepted++;
      assertThat(slow.isFinished()).as("delta %d fits", i).isFalse();
      assertThat(((PoolStream) slow).queuedBytes()).isEqualTo(queued);
    }
    assertThat(accepted).isLessThan(100).isPositive();
    assertThat(slow.isFinished()).isTrue();
    assertThat(pollError(slow)).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
    assertThat(fx.registry.stats().lagged()).isEqualTo(1);
  }

  @Test
  void decisionTerminationDiscardsQueuedFrames() throws Exception {
    // Decision: a lagged (or otherwise hub-terminated) stream drops its queue; the next poll throws.
    HubFixture fx = new HubFixture(HubFixture.settings(2, 16_777_216L, 4));
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> s = open(fx, a, "s");
    s.poll();
    a.store(1, 1);
    a.publish();
    a.store(1, 1);
    a.publish();
    assertThat(((PoolStream) s).queuedFrames()).isEqualTo(2);
    a.store(1, 1);
    a.publish();
    assertThat(((PoolStream) s).queuedFrames()).isZero();
    assertThat(pollError(s)).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
    assertThat(pollError(s)).as("every later poll").isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
  }

  @Test
  void neverPollingSubscriberHoldsBoundedMemoryThenLags() throws Exception {
    HubFixture fx = new HubFixture(HubFixture.settings(16, 16_777_216L, 4));
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> idle = open(fx, a, "idle");
    PoolStream ps = (PoolStream) idle;
    int max = 0;
    for (int i = 0; i < 40; i++) {
      a.store(1, 2);
      a.publish();
      max = Math.max(max, ps.queuedFrames());
    }
    assertThat(max).isEqualTo(16);
    assertThat(ps.queuedFrames()).isZero();
    assertThat(ps.holdsPermit()).isFalse();
    assertThat(a.slot.pinned()).isFalse();
    assertThat(a.slot.subscriberCount()).isZero();
    assertThat(pollError(idle)).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
  }

  @Test
  void deltasDuringBootstrapQueueBehindTheChunksAndStartAtTheSnapshot() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    a.store(1, 3);
    a.publish(); // no lease yet: dropped by the producer
    RelayStream<PoolFrame> s1 = open(fx, a, "first");
    s1.poll();
    a.store(1, 3);
    a.publish(); // wire 0 -> 1
    RelayStream<PoolFrame> s2 = open(fx, a, "second"); // snapshot at 1
    a.store(1, 3);
    a.publish(); // 1 -> 2, queued behind s2's chunk
    WireReplica r2 = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    PoolFrame first = s2.poll();
    assertThat(first.kind()).isEqualTo(PoolFrame.Kind.SNAPSHOT_CHUNK);
    assertThat(first.sequence()).isEqualTo(1);
    r2.apply(first);
    PoolFrame next = s2.poll();
    assertThat(next.kind()).isEqualTo(PoolFrame.Kind.DELTA);
    assertThat(next.baseSequence()).isEqualTo(1);
    r2.apply(next);
    HubFixture.assertSameWords(r2.words, a.words());
  }

  @Test
  void snapshotProgressTimeoutEndsTheStreamWithoutFencing() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> stuck = open(fx, a, "stuck");
    AtomicInteger wakeups = new AtomicInteger();
    stuck.onAvailable(wakeups::incrementAndGet);
    int before = wakeups.get();
    fx.timers.advanceMs(59_999);
    assertThat(stuck.isFinished()).isFalse();
    fx.timers.advanceMs(1);
    assertThat(stuck.isFinished()).isTrue();
    assertThat(wakeups.get()).isGreaterThan(before);
    assertThat(pollError(stuck)).isEqualTo(RelayErrorReason.SNAPSHOT_PROGRESS_TIMEOUT);
    assertThat(fx.faults).isEmpty();
    assertThat(fx.registry.stats().progressTimeouts()).isEqualTo(1);
    assertThat(fx.registry.permits().available()).isEqualTo(2);
    assertThat(a.slot.subscriberCount()).isZero();
    assertThat(a.slot.isInitialized()).isTrue();
    open(fx, a, "again").poll();
  }

  @Test
  void snapshotProgressDeadlineRestartsAfterEveryTakenChunk() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41, CkfFormat.of(0x5EEDL, 1 << 21)); // 4 chunks
    RelayStream<PoolFrame> s = open(fx, a, "s");
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    for (int i = 0; i < 4; i++) {
      fx.timers.advanceMs(59_000);
      PoolFrame f = s.poll();
      assertThat(f.kind()).isEqualTo(PoolFrame.Kind.SNAPSHOT_CHUNK);
      r.apply(f);
    }
    assertThat(r.snapshotChunks).isEqualTo(Cbi1.chunkCount(1 << 21)).isEqualTo(4);
    assertThat(r.installed).isTrue();
    fx.timers.advanceMs(120_000);
    assertThat(fx.registry.stats().progressTimeouts()).isZero();
    assertThat(fx.registry.permits().available()).isEqualTo(2);
  }

  @Test
  void heartbeatAfterTheIntervalWithoutATakenFrameOnlyAfterTheSnapshot() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> s = open(fx, a, "s");
    fx.timers.advanceMs(20_000); // no heartbeat before the snapshot was taken
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    r.apply(s.poll());
    assertThat(s.poll()).isNull();
    AtomicInteger wakeups = new AtomicInteger();
    s.onAvailable(wakeups::incrementAndGet);
    fx.timers.advanceMs(9_999);
    assertThat(s.poll()).isNull();
    assertThat(wakeups.get()).isZero();
    fx.timers.advanceMs(1);
    assertThat(wakeups.get()).isEqualTo(1);
    PoolFrame hb = s.poll();
    assertThat(hb.kind()).isEqualTo(PoolFrame.Kind.HEARTBEAT);
    r.apply(hb);
    assertThat(s.poll()).isNull();
    // a delta resets the timer
    fx.timers.advanceMs(5_000);
    a.store(1, 2);
    a.publish();
    r.apply(s.poll());
    fx.timers.advanceMs(9_999);
    assertThat(s.poll()).isNull();
    fx.timers.advanceMs(1);
    PoolFrame hb2 = s.poll();
    assertThat(hb2.kind()).isEqualTo(PoolFrame.Kind.HEARTBEAT);
    assertThat(hb2.sequence()).isEqualTo(1);
    r.apply(hb2);
    assertThat(fx.registry.stats().heartbeats()).isEqualTo(2);
  }

  @Test
  void subscriberCapPerPoolRefusesResourceLimit() throws Exception {
    HubFixture fx = new HubFixture(new HubSettings(16, 16_777_216L, 10_000, 60_000, 2, 4, 2));
    HubFixture.Pool a = fx.pool(41);
    open(fx, a, "1");
    RelayStream<PoolFrame> two = open(fx, a, "2");
    assertThat(refusal(fx.registry.subscribe(a.identity.poolId(), a.identity, "3")))
        .isEqualTo(RelayErrorReason.RESOURCE_LIMIT);
    two.close();
    open(fx, a, "3");
    assertThat(fx.registry.stats().refusedResourceLimit()).isEqualTo(1);
  }

  @Test
  void unknownPoolAndChangedProducerAreRefused() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    assertThat(refusal(fx.registry.subscribe(a.identity.poolId(), b.identity, "x")))
        .isEqualTo(RelayErrorReason.PRODUCER_CHANGED);
    b.slot.retire();
    assertThat(refusal(fx.registry.subscribe(b.identity.poolId(), b.identity, "x")))
        .isEqualTo(RelayErrorReason.POOL_NOT_FOUND);
    assertThat(fx.registry.stats().refusedPoolNotFound()).isEqualTo(1);
    assertThat(fx.registry.stats().refusedProducerChanged()).isEqualTo(1);
  }

  @Test
  void identityIsReCheckedAfterLazyInit() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    a.deferSubscribe = true;
    CompletableFuture<RelayStream<PoolFrame>> waiting =
        fx.registry.subscribe(a.identity.poolId(), a.identity, "w");
    assertThat(waiting).isNotDone();
    // the same generation is replaced by a new slot with the same identity while init is in flight
    HubSlot old = a.slot;
    a.reattach();
    assertThat(old.phase()).isEqualTo(HubSlot.Phase.RETIRED);
    assertThat(refusal(waiting)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    a.runDeferred();
    assertThat(fx.registry.stats().initializedHubs()).isZero();
  }

  @Test
  void retireEndsStreamsAndWaitersWithPublicationUnavailable() throws Exception {
    HubFixture fx = new HubFixture(HubFixture.settings(16, 16_777_216L, 2));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    RelayStream<PoolFrame> sa = open(fx, a, "a");
    sa.poll();
    b.deferSubscribe = true;
    CompletableFuture<RelayStream<PoolFrame>> waiter = fx.registry.subscribe(b.identity.poolId(), b.identity, "b");
    assertThat(waiter).isNotDone();
    assertThat(fx.registry.stats().initializedHubs()).isEqualTo(2);
    a.slot.retire();
    b.slot.retire();
    assertThat(pollError(sa)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(refusal(waiter)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.registry.stats().initializedHubs()).isZero();
    assertThat(a.slot.offer(CkfPublicationsOf.none())).isFalse();
    b.runDeferred(); // the late barrier is given back
    assertThat(b.retiredLeases).contains(b.subscribedLeases.get(0));
    a.reattach();
    RelayStream<PoolFrame> again = open(fx, a, "again");
    assertThat(again.poll().kind()).isEqualTo(PoolFrame.Kind.SNAPSHOT_CHUNK);
  }

  @Test
  void registryCloseRetiresEverything() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> sa = open(fx, a, "a");
    fx.registry.close();
    assertThat(pollError(sa)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(refusal(fx.registry.subscribe(a.identity.poolId(), a.identity, "b")))
        .isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.registry.permits().available()).isEqualTo(2);
  }

  @Test
  void baseMismatchIsATerminalFaultAndStreamsEndInvalidPublication() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> s = open(fx, a, "s");
    s.poll();
    a.store(1, 2);
    a.producer.drain(); // lost on the way: the next delta's base is one ahead of the mirror
    a.store(1, 2);
    CkfPublication next = a.producer.drain();
    assertThat(a.slot.offer(next)).isFalse();
    assertThat(fx.faults).hasSize(1);
    assertThat(fx.faults.get(0).reason()).isEqualTo(RelayErrorReason.INVALID_PUBLICATION);
    assertThat(pollError(s)).isEqualTo(RelayErrorReason.INVALID_PUBLICATION);
    assertThat(refusal(fx.registry.subscribe(a.identity.poolId(), a.identity, "t")))
        .isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.registry.stats().initializedHubs()).isZero();
    assertThat(fx.registry.stats().faults()).isEqualTo(1);
  }

  @Test
  void publicationsOfAnotherLeaseAreIgnoredAndCounted() throws Exception {
    HubFixture fx = new HubFixture(HubFixture.settings(16, 16_777_216L, 1));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    open(fx, a, "a").close();
    a.store(1, 2);
    CkfPublication stale = a.producer.drain();
    open(fx, b, "b"); // evicts a
    assertThat(a.slot.offer(stale)).isTrue();
    assertThat(fx.registry.stats().foreignPublications()).isEqualTo(1);
  }

  @Test
  void oversizedSnapshotResnapshotsClosingStreamsAndNewSubscribersGetIt() throws Exception {
    HubFixture fx = new HubFixture();
    CkfFormat big = CkfFormat.of(0x5EEDL, 1 << 20); // 2 chunks
    HubFixture.Pool a = fx.pool(41, big);
    RelayStream<PoolFrame> s = open(fx, a, "s");
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(s, r);
    assertThat(r.snapshotChunks).isEqualTo(2);
    for (int i = 0; i < 300; i++) {
      a.store(1, 1_700);
    }
    CkfPublication p = a.publish();
    assertThat(p).isInstanceOf(CkfSnapshot.class);
    assertThat(pollError(s)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.registry.stats().resnapshots()).isEqualTo(1);
    assertThat(fx.faults).isEmpty();
    RelayStream<PoolFrame> s2 = open(fx, a, "s2");
    WireReplica r2 = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(s2, r2);
    assertThat(r2.snapshotSequence).isEqualTo(1);
    HubFixture.assertSameWords(r2.words, a.words());
    a.store(1, 3);
    a.publish();
    drain(s2, r2);
    assertThat(r2.sequence).isEqualTo(2);
    HubFixture.assertSameWords(r2.words, a.words());
  }

  @Test
  void encodingPermitsBoundConcurrentBootstrapsAndAreHandedOverOnClose() throws Exception {
    HubFixture fx = new HubFixture(new HubSettings(16, 16_777_216L, 10_000, 60_000, 64, 4, 1));
    HubFixture.Pool a = fx.pool(41, CkfFormat.of(0x5EEDL, 1 << 20));
    RelayStream<PoolFrame> first = open(fx, a, "first");
    RelayStream<PoolFrame> second = open(fx, a, "second");
    List<Integer> order = new ArrayList<>();
    second.onAvailable(() -> order.add(2));
    assertThat(second.poll()).as("waits for the permit").isNull();
    assertThat(first.poll().kind()).isEqualTo(PoolFrame.Kind.SNAPSHOT_CHUNK);
    first.close(); // mid-bootstrap: permit handed to the waiter
    assertThat(order).containsExactly(2);
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(second, r);
    assertThat(r.installed).isTrue();
    assertThat(fx.registry.permits().available()).isEqualTo(1);
    assertThat(a.slot.pinned()).isFalse();
  }

  @Test
  void streamsOpenedAtTheSameSequenceShareOneSnapshotCopy() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    a.store(1, 4);
    open(fx, a, "1");
    open(fx, a, "2");
    // both chunk payloads are encoded from the same copy: equal bytes at the same sequence
    assertThat(a.slot.pinned()).isTrue();
    assertThat(fx.registry.stats().openStreams()).isEqualTo(2);
  }

  @Test
  void closeReleasesPermitPinAndSubscriberSlot() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> s = open(fx, a, "s");
    assertThat(fx.registry.permits().available()).isEqualTo(1);
    s.close();
    s.close();
    assertThat(fx.registry.permits().available()).isEqualTo(2);
    assertThat(a.slot.pinned()).isFalse();
    assertThat(a.slot.subscriberCount()).isZero();
    assertThat(s.poll()).isNull();
    assertThat(s.isFinished()).isTrue();
    assertThat(fx.registry.stats().openStreams()).isZero();
  }

  /** Helper giving a NoPublication without importing the enum into every test. */
  static final class CkfPublicationsOf {
    static CkfPublication none() {
      return dev.kvrelay.ckf.producer.NoPublication.NOTHING_PENDING;
    }
  }
}
