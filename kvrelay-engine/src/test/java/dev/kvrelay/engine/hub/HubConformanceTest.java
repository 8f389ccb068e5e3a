package dev.kvrelay.engine.hub;

import static dev.kvrelay.engine.hub.HubFixture.drain;
import static dev.kvrelay.engine.hub.HubFixture.open;
import static dev.kvrelay.engine.hub.HubFixture.pollError;
import static dev.kvrelay.engine.hub.HubFixture.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.ckf.cbi1.Cbi1;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.engine.WireReplica;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * wan-grpc.md §9 C39–C42 (hub, publication stream, publication source admission, registry): one test per behaviour
 * the older hub tests did not name. Deterministic unless the name says "race" (those use real threads, bounded).
 */
class HubConformanceTest {
  private static final long WAIT_MS = 10_000;

  private static HubSettings settings(int capacity, int perPool, int maxHubs, int encoders) {
    return new HubSettings(capacity, 16_777_216L, 10_000, 60_000, perPool, maxHubs, encoders);
  }

  /** Opens, bootstraps and closes one stream: the hub is then Ready and idle. */
  private static void warm(HubFixture fx, HubFixture.Pool p) throws Exception {
    RelayStream<PoolFrame> s = open(fx, p, "warm-" + p.identity.poolId().dcId().value());
    assertThat(s.poll().kind()).isEqualTo(PoolFrame.Kind.SNAPSHOT_CHUNK);
    s.close();
    assertThat(p.slot.isInitialized()).isTrue();
    assertThat(p.slot.subscriberCount()).isZero();
  }

  // ------------------------------------------------------------------ C39

  @Test
  void c39_anIdleHubAdvancesItsMirrorWithoutTakingEncodingPermits() throws Exception {
    HubFixture fx = new HubFixture(settings(16, 64, 4, 1));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    warm(fx, a);
    RelayStream<PoolFrame> holder = open(fx, b, "holder"); // takes the only encoding permit, never polls
    assertThat(fx.registry.permits().available()).isZero();
    for (int i = 0; i < 3; i++) {
      a.store(1, 2);
      a.publish();
    }
    assertThat(fx.registry.stats().idleDeltasApplied()).isEqualTo(3);
    assertThat(fx.registry.stats().deltasEncoded()).as("an idle hub encodes nothing").isZero();
    assertThat(fx.registry.permits().available()).isZero();
    assertThat(fx.registry.permits().waiting()).as("nobody queued for a permit").isZero();
    // the mirror advanced while no permit was free: a subscriber opened now starts at wire sequence 3
    RelayStream<PoolFrame> late = open(fx, a, "late");
    assertThat(late.poll()).as("waits for the permit").isNull();
    holder.close();
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    assertThat(drain(late, r)).isEqualTo(1);
    assertThat(r.snapshotSequence).isEqualTo(3);
    HubFixture.assertSameWords(r.words, a.words());
  }

  @Test
  void c39_aSubscriberArrivingDuringTheIdleCopyReceivesThePendingDelta() throws Exception {
    HubFixture fx = new HubFixture(settings(16, 64, 4, 2));
    HubFixture.Pool a = fx.pool(41);
    warm(fx, a);
    // deterministic: the copy is taken while idle, the delta arrives before the first chunk is taken
    RelayStream<PoolFrame> s = open(fx, a, "s");
    a.store(1, 2);
    a.publish();
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    assertThat(drain(s, r)).isEqualTo(2);
    assertThat(r.snapshotSequence).isZero();
    assertThat(r.sequence).isEqualTo(1);
    HubFixture.assertSameWords(r.words, a.words());
    s.close();
    // race: an actor thread publishes on the idle hub while subscribers arrive; none may miss a delta
    for (int round = 0; round < 200; round++) {
      CountDownLatch go = new CountDownLatch(1);
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread actor = new Thread(() -> {
        try {
          go.await();
          for (int i = 0; i < 3; i++) {
            a.store(2, 1);
            a.publish();
          }
        } catch (Throwable t) {
          failed.set(t);
        }
      });
      actor.start();
      go.countDown();
      RelayStream<PoolFrame> sub = open(fx, a, "race-" + round);
      actor.join(WAIT_MS);
      assertThat(actor.isAlive()).isFalse();
      assertThat(failed.get()).isNull();
      WireReplica rr = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
      drain(sub, rr);
      assertThat(rr.installed).isTrue();
      assertThat(rr.sequence).as("round %d", round).isEqualTo(a.producer.lastSequence());
      HubFixture.assertSameWords(rr.words, a.words());
      sub.close();
    }
    assertThat(fx.registry.stats().faults()).isZero();
  }

  @Test
  void c39_aSingleOversizedDeltaResnapshotsAndClosesTheOldSubscribers() throws Exception {
    HubFixture fx = new HubFixture();
    int buckets = 1 << 20;
    HubFixture.Pool a = fx.pool(41, CkfFormat.of(0x5EEDL, buckets)); // 2 chunks
    RelayStream<PoolFrame> s1 = open(fx, a, "s1");
    RelayStream<PoolFrame> s2 = open(fx, a, "s2");
    WireReplica r1 = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(s1, r1);
    drain(s2, new WireReplica(a.identity).expectRelay(HubFixture.RELAY));
    long[] expected = a.words();
    long lease = a.slot.lease();
    // the largest delta (349 525 images) still fits one frame and is delivered
    int max = CkfDelta.MAX_IMAGES;
    assertThat(a.slot.offer(HubFaults.delta(lease, 0, range(0, max), values(0, max, 1)))).isTrue();
    apply(expected, 0, max, 1);
    PoolFrame d = s1.poll();
    assertThat(d.kind()).isEqualTo(PoolFrame.Kind.DELTA);
    assertThat(d.payload().length).isEqualTo(48 + 12 + 12 * max).isLessThanOrEqualTo(Cbi1.MAX_FRAME_BYTES);
    r1.apply(d);
    HubFixture.assertSameWords(r1.words, expected);
    assertThat(fx.registry.stats().deltasEncoded()).isEqualTo(1);
    // one image more: its frame would exceed 4 194 368 bytes ⇒ resnapshot, every current subscriber ends
    int over = max + 1;
    assertThat(a.slot.offer(HubFaults.delta(lease, 1, range(0, over), values(0, over, 7)))).isTrue();
    apply(expected, 0, over, 7);
    assertThat(pollError(s1)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(pollError(s2)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.registry.stats().resnapshots()).isEqualTo(1);
    assertThat(fx.registry.stats().deltasEncoded()).as("the oversized delta is never encoded").isEqualTo(1);
    assertThat(fx.faults).as("a resnapshot is not a fault").isEmpty();
    assertThat(a.slot.isInitialized()).isTrue();
    RelayStream<PoolFrame> s3 = open(fx, a, "s3");
    WireReplica r3 = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    assertThat(drain(s3, r3)).isEqualTo(2);
    assertThat(r3.snapshotSequence).isEqualTo(2);
    HubFixture.assertSameWords(r3.words, expected);
  }

  private static int[] range(int from, int count) {
    int[] b = new int[count];
    for (int i = 0; i < count; i++) {
      b[i] = from + i;
    }
    return b;
  }

  private static long[] values(int from, int count, long salt) {
    long[] w = new long[count];
    for (int i = 0; i < count; i++) {
      w[i] = (from + i) * 0x9E3779B97F4A7C15L + salt | 1L;
    }
    return w;
  }

  private static void apply(long[] words, int from, int count, long salt) {
    long[] v = values(from, count, salt);
    System.arraycopy(v, 0, words, from, count);
  }

  // ------------------------------------------------------------------ C40

  @Test
  void c40_anEncoderPanicEndsTheStreamInternalAndFencesTheGeneration() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> live = open(fx, a, "live");
    drain(live, new WireReplica(a.identity).expectRelay(HubFixture.RELAY));
    HubFaults.panicSnapshotEncoder(fx.registry, 0);
    RelayStream<PoolFrame> boot = open(fx, a, "boot");
    assertThat(pollError(boot)).isEqualTo(RelayErrorReason.INTERNAL);
    assertThat(pollError(boot)).as("every later poll").isEqualTo(RelayErrorReason.INTERNAL);
    assertThat(fx.faults).hasSize(1);
    assertThat(fx.faults.get(0).reason()).isEqualTo(RelayErrorReason.INTERNAL);
    assertThat(fx.faults.get(0).pool()).isEqualTo(a.identity.poolId());
    assertThat(pollError(live)).as("the hub is stopped").isEqualTo(RelayErrorReason.INTERNAL);
    assertThat(a.slot.phase()).isEqualTo(HubSlot.Phase.FAILED);
    assertThat(fx.registry.stats().faults()).isEqualTo(1);
    assertThat(fx.registry.stats().initializedHubs()).isZero();
    assertThat(fx.registry.stats().openStreams()).isZero();
    assertThat(fx.registry.permits().available()).isEqualTo(2);
    assertThat(refusal(fx.registry.subscribe(a.identity.poolId(), a.identity, "after")))
        .isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
  }

  @Test
  void c40_aCancelledEncoderEndsTheStreamUnavailableWithoutAFence() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> live = open(fx, a, "live");
    WireReplica rl = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(live, rl);
    HubFaults.cancelSnapshotEncoder(fx.registry);
    RelayStream<PoolFrame> boot = open(fx, a, "boot");
    assertThat(pollError(boot)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(pollError(boot)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.faults).as("no fence").isEmpty();
    assertThat(fx.registry.stats().encoderCancellations()).isEqualTo(1);
    assertThat(fx.registry.stats().faults()).isZero();
    assertThat(fx.registry.permits().available()).isEqualTo(2);
    assertThat(a.slot.isInitialized()).isTrue();
    assertThat(a.slot.subscriberCount()).isEqualTo(1);
    assertThat(a.slot.pinned()).isFalse();
    a.store(1, 2);
    a.publish();
    drain(live, rl);
    HubFixture.assertSameWords(rl.words, a.words());
    HubFaults.restoreSnapshotEncoder(fx.registry);
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(open(fx, a, "again"), r);
    HubFixture.assertSameWords(r.words, a.words());
  }

  @Test
  void c40_retirementOrCloseDuringAnEncodeEndsUnavailableWithoutAFence() throws Exception {
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    RelayStream<PoolFrame> sa = open(fx, a, "a");
    RelayStream<PoolFrame> sb = open(fx, b, "b");
    AtomicReference<Runnable> during = new AtomicReference<>();
    fx.registry.snapshotEncoderForTests((format, dc, seq, words, chunk) -> {
      Runnable r = during.getAndSet(null);
      if (r != null) {
        r.run();
      }
      return SnapshotChunkEncoder.CBI1.encode(format, dc, seq, words, chunk);
    });
    during.set(a.slot::retire);
    assertThat(pollError(sa)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    during.set(sb::close);
    assertThat(sb.poll()).as("closed mid-encode: nothing delivered").isNull();
    assertThat(fx.faults).isEmpty();
    assertThat(fx.registry.permits().available()).isEqualTo(2);
    assertThat(b.slot.pinned()).isFalse();
    assertThat(fx.registry.stats().framesDelivered()).isZero();
  }

  @Test
  void c40_decisionTheBootstrapEncodesOnDemandWithNoFrameQueuedAhead() throws Exception {
    // Decision: upstream's bootstrap producer keeps exactly 1 queued frame; ours queues none: each chunk is
    // encoded by the poll that takes it, so at most one chunk exists beyond what the consumer has taken.
    HubFixture fx = new HubFixture();
    HubFixture.Pool a = fx.pool(41, CkfFormat.of(0x5EEDL, 1 << 21)); // 4 chunks
    AtomicInteger encoded = new AtomicInteger();
    fx.registry.snapshotEncoderForTests((format, dc, seq, words, chunk) -> {
      encoded.incrementAndGet();
      return SnapshotChunkEncoder.CBI1.encode(format, dc, seq, words, chunk);
    });
    RelayStream<PoolFrame> s = open(fx, a, "s");
    fx.timers.advanceMs(1_000);
    assertThat(encoded.get()).as("nothing encoded before the first poll").isZero();
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    for (int i = 1; i <= 4; i++) {
      r.apply(s.poll());
      assertThat(encoded.get()).isEqualTo(i);
    }
    assertThat(r.installed).isTrue();
  }

  // ------------------------------------------------------------------ C41

  @Test
  void c41_lagIsNotAnAdmissionError() throws Exception {
    HubFixture fx = new HubFixture(settings(1, 1, 4, 2));
    HubFixture.Pool a = fx.pool(41);
    RelayStream<PoolFrame> slow = open(fx, a, "slow");
    slow.poll();
    for (int i = 0; i < 2; i++) {
      a.store(1, 1);
      a.publish();
    }
    assertThat(pollError(slow)).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
    RelayEngineStats.Hubs st = fx.registry.stats();
    assertThat(st.lagged()).isEqualTo(1);
    assertThat(st.refusedResourceLimit() + st.refusedUnavailable() + st.refusedPoolNotFound()
        + st.refusedProducerChanged()).as("no admission refusal counted").isZero();
    // the per-pool cap is 1: the lagged stream's place is free at once, the next subscriber is admitted
    RelayStream<PoolFrame> next = open(fx, a, "slow");
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(next, r);
    HubFixture.assertSameWords(r.words, a.words());
    assertThat(fx.registry.stats().subscribersAdmitted()).isEqualTo(2);
    assertThat(fx.faults).isEmpty();
  }

  @Test
  void c41_retirementOrShutdownDuringTheEncodingPermitWaitEndsUnavailableAndReleasesThePermit() throws Exception {
    HubFixture fx = new HubFixture(settings(16, 64, 4, 1));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    HubFixture.Pool c = fx.pool(43);
    RelayStream<PoolFrame> holder = open(fx, a, "holder");
    RelayStream<PoolFrame> waiter = open(fx, b, "waiter");
    assertThat(waiter.poll()).isNull();
    assertThat(fx.registry.permits().waiting()).isEqualTo(1);
    b.slot.retire();
    assertThat(pollError(waiter)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.registry.permits().waiting()).as("the wait is cancelled").isZero();
    RelayStream<PoolFrame> waiter2 = open(fx, c, "waiter2");
    assertThat(fx.registry.permits().waiting()).isEqualTo(1);
    fx.registry.close(); // shutdown
    assertThat(pollError(waiter2)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(pollError(holder)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.registry.permits().waiting()).isZero();
    assertThat(fx.registry.permits().available()).as("every permit back").isEqualTo(1);
    assertThat(fx.faults).isEmpty();
  }

  @Test
  void c41_unknownGenerationIsNotFoundBeforeAnyPermit() throws Exception {
    HubFixture fx = new HubFixture(settings(16, 64, 1, 1));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    open(fx, a, "holder"); // holds the only init permit and the only encoding permit
    b.slot.retire(); // b's generation is gone
    ProducerIdentity never = HubFixture.producer(99, (byte) 99, HubFixture.FORMAT);
    assertThat(refusal(fx.registry.subscribe(never.poolId(), never, "x"))).isEqualTo(RelayErrorReason.POOL_NOT_FOUND);
    assertThat(refusal(fx.registry.subscribe(b.identity.poolId(), b.identity, "y")))
        .isEqualTo(RelayErrorReason.POOL_NOT_FOUND);
    assertThat(fx.registry.permits().available()).isZero();
    assertThat(fx.registry.permits().waiting()).as("no encoding-permit wait").isZero();
    assertThat(fx.registry.freeInitPermits()).isZero();
    assertThat(a.retiredLeases).as("no eviction attempted").isEmpty();
    assertThat(b.subscribedLeases).isEmpty();
    assertThat(fx.registry.stats().refusedPoolNotFound()).isEqualTo(2);
    assertThat(fx.registry.stats().refusedResourceLimit()).isZero();
  }

  // ------------------------------------------------------------------ C42

  @Test
  void c42_aPendingAdmissionProtectsAHubFromEviction() throws Exception {
    HubFixture fx = new HubFixture(settings(16, 64, 1, 2));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    warm(fx, a);
    // an admission of a is between registry admission (step 11) and hub.subscribe (step 14)
    synchronized (fx.registry) {
      assertThat(a.slot.beginAdmissionLocked()).isEqualTo(HubSlot.Admission.READY);
    }
    assertThat(refusal(fx.registry.subscribe(b.identity.poolId(), b.identity, "b")))
        .isEqualTo(RelayErrorReason.RESOURCE_LIMIT);
    assertThat(a.retiredLeases).isEmpty();
    assertThat(a.slot.isInitialized()).isTrue();
    RelayStream<PoolFrame> late = a.slot.open("late"); // the admission completes on the protected hub
    WireReplica r = new WireReplica(a.identity).expectRelay(HubFixture.RELAY);
    drain(late, r);
    HubFixture.assertSameWords(r.words, a.words());
    late.close();
    open(fx, b, "b"); // no admission pending any more: a is the victim
    assertThat(a.retiredLeases).hasSize(1);
    assertThat(fx.registry.stats().evictions()).isEqualTo(1);
  }

  @Test
  void c42_oneVictimPerRequester() throws Exception {
    HubFixture fx = new HubFixture(settings(16, 64, 2, 2));
    HubFixture.Pool a = fx.pool(41);
    HubFixture.Pool b = fx.pool(42);
    HubFixture.Pool c = fx.pool(43);
    HubFixture.Pool d = fx.pool(44);
    HubFixture.Pool e = fx.pool(45);
    warm(fx, a);
    warm(fx, b);
    open(fx, c, "c");
    assertThat(fx.registry.stats().evictions()).isEqualTo(1);
    assertThat(a.retiredLeases.size() + b.retiredLeases.size()).as("exactly one of two idle hubs").isEqualTo(1);
    assertThat(a.slot.isInitialized() ^ b.slot.isInitialized()).isTrue();
    open(fx, d, "d");
    assertThat(fx.registry.stats().evictions()).isEqualTo(2);
    assertThat(a.retiredLeases).hasSize(1);
    assertThat(b.retiredLeases).hasSize(1);
    assertThat(refusal(fx.registry.subscribe(e.identity.poolId(), e.identity, "e")))
        .isEqualTo(RelayErrorReason.RESOURCE_LIMIT);
    assertThat(fx.registry.stats().initializedHubs()).isEqualTo(2);
  }

  @Test
  void c42_retirementCancelsAnInFlightInitAndWinsTheRace() throws Exception {
    HubFixture fx = new HubFixture(settings(16, 64, 4, 2));
    HubFixture.Pool a = fx.pool(41);
    a.deferSubscribe = true;
    CompletableFuture<RelayStream<PoolFrame>> w1 = fx.registry.subscribe(a.identity.poolId(), a.identity, "w1");
    CompletableFuture<RelayStream<PoolFrame>> w2 = fx.registry.subscribe(a.identity.poolId(), a.identity, "w2");
    assertThat(w1).isNotDone();
    assertThat(w2).isNotDone();
    assertThat(fx.registry.stats().initializedHubs()).isEqualTo(1);
    a.slot.retire();
    assertThat(refusal(w1)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(refusal(w2)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(fx.registry.stats().initializedHubs()).as("the init permit is released").isZero();
    a.runDeferred(); // the barrier arrives after the retirement: the lease goes back, nothing starts
    assertThat(a.retiredLeases).contains(a.subscribedLeases.get(0));
    assertThat(a.slot.phase()).isEqualTo(HubSlot.Phase.RETIRED);
    assertThat(fx.registry.stats().openStreams()).isZero();

    // race: retirement on another thread against a subscribe with a synchronous init, 200 rounds
    for (int round = 0; round < 200; round++) {
      HubFixture.Pool p = fx.pool(1_000 + round);
      CountDownLatch go = new CountDownLatch(1);
      Thread retirer = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException ex) {
          Thread.currentThread().interrupt();
        }
        p.slot.retire();
      });
      retirer.start();
      go.countDown();
      CompletableFuture<RelayStream<PoolFrame>> f = fx.registry.subscribe(p.identity.poolId(), p.identity, "r");
      retirer.join(WAIT_MS);
      assertThat(retirer.isAlive()).isFalse();
      assertThat(f).isDone();
      if (f.isCompletedExceptionally()) {
        assertThat(refusal(f)).isIn(RelayErrorReason.PUBLICATION_UNAVAILABLE, RelayErrorReason.POOL_NOT_FOUND);
      } else {
        RelayStream<PoolFrame> s = f.get();
        assertThat(pollError(s)).as("round %d: a stream of a retired generation ends", round)
            .isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
      }
      synchronized (p) {
        assertThat(p.retiredLeases).as("round %d: every lease given back", round).containsAll(p.subscribedLeases);
      }
    }
    assertThat(fx.registry.stats().initializedHubs()).isZero();
    assertThat(fx.registry.stats().openStreams()).isZero();
    assertThat(fx.registry.permits().available()).isEqualTo(2);
    assertThat(fx.faults).isEmpty();
  }

  @Test
  void c42_aStaleGenerationCannotFenceOrInitTheReplacement() throws Exception {
    HubFixture fx = new HubFixture(settings(16, 64, 4, 2));
    HubFixture.Pool old = fx.pool(41);
    old.deferSubscribe = true;
    CompletableFuture<RelayStream<PoolFrame>> waiter =
        fx.registry.subscribe(old.identity.poolId(), old.identity, "w");
    HubSlot stale = old.slot;
    long staleLease = old.subscribedLeases.get(0);
    ProducerIdentity next = new ProducerIdentity(old.identity.poolId(), old.identity.producerIncarnation(),
        old.identity.layoutGeneration() + 1, old.identity.ckfFormat());
    HubFixture.Pool replacement = fx.new Pool(next);
    assertThat(refusal(waiter)).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
    assertThat(refusal(fx.registry.subscribe(old.identity.poolId(), old.identity, "x")))
        .isEqualTo(RelayErrorReason.PRODUCER_CHANGED);
    RelayStream<PoolFrame> s = open(fx, replacement, "new");
    WireReplica r = new WireReplica(next).expectRelay(HubFixture.RELAY);
    drain(s, r);
    long replacementLease = replacement.slot.lease();
    // the stale generation's late barrier neither initializes nor disturbs the replacement
    old.runDeferred();
    assertThat(old.retiredLeases).contains(staleLease);
    assertThat(stale.phase()).isEqualTo(HubSlot.Phase.RETIRED);
    assertThat(replacement.slot.lease()).isEqualTo(replacementLease);
    // a stale fault (encoder failure, bad publication) fences nothing
    stale.encoderFault("stale encoder failure");
    assertThat(stale.offer(HubFaults.delta(staleLease, 77, new int[] {0}, new long[] {1}))).isFalse();
    assertThat(fx.faults).isEmpty();
    assertThat(fx.registry.stats().faults()).isZero();
    replacement.store(1, 3);
    replacement.publish();
    assertThat(drain(s, r)).isEqualTo(1);
    HubFixture.assertSameWords(r.words, replacement.words());
    assertThat(replacement.slot.isInitialized()).isTrue();
  }

}
