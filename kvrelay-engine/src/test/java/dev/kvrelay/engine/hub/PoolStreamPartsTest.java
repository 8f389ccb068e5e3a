package dev.kvrelay.engine.hub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.cbi1.Cbi1;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The parts PoolStream delegates to (frame queue, snapshot bootstrap, heartbeat clock), driven directly. */
class PoolStreamPartsTest {
  private static PoolFrame delta(long seq, int payloadBytes) {
    return new PoolFrame(1, 0, null, null, seq - 1, seq, 0, PoolFrame.Kind.DELTA.number(), new byte[payloadBytes]);
  }

  @Test
  void queueKeepsFifoOrderAcrossGrowthWhileWrappedAndCountsBytes() {
    PoolFrameQueue q = new PoolFrameQueue(200, Long.MAX_VALUE, 5);
    int[] adds = {60, 150, 150};
    int[] takes = {50, 140, 10};
    long seq = 5;
    long expectedNext = 6;
    for (int round = 0; round < adds.length; round++) {
      for (int i = 0; i < adds[round]; i++) {
        seq++;
        PoolFrame f = delta(seq, (int) (seq % 97));
        assertThat(q.overflow(PoolFrameQueue.cost(f))).isNull();
        q.add(f, PoolFrameQueue.cost(f));
      }
      for (int i = 0; i < takes[round]; i++) {
        PoolFrame f = q.take();
        assertThat(f).isNotNull();
        assertThat(f.sequence()).isEqualTo(expectedNext++);
        assertThat(q.deliveredSeqView()).isEqualTo(f.sequence());
      }
    }
    assertThat(q.size()).isEqualTo(160).isEqualTo(q.sizeView());
    long bytes = 0;
    for (long s = expectedNext; s <= seq; s++) {
      bytes += s % 97 + Cbi1.QUEUED_FRAME_OVERHEAD;
    }
    assertThat(q.bytes()).isEqualTo(bytes).isEqualTo(q.bytesView());
    assertThat(q.publishedSeqView()).isEqualTo(seq);
    for (long s = expectedNext; s <= seq; s++) {
      assertThat(q.take().sequence()).isEqualTo(s);
    }
    assertThat(q.take()).isNull();
    assertThat(q.bytes()).isZero();
  }

  @Test
  void queueRefusesByFrameCountAndByBytesWithTheBoundInTheMessage() {
    PoolFrameQueue byCount = new PoolFrameQueue(2, Long.MAX_VALUE, 0);
    byCount.add(delta(1, 1), PoolFrameQueue.cost(delta(1, 1)));
    byCount.add(delta(2, 1), PoolFrameQueue.cost(delta(2, 1)));
    assertThat(byCount.overflow(PoolFrameQueue.cost(delta(3, 1)))).isEqualTo("queue of 2 frames is full");

    long cost = PoolFrameQueue.cost(delta(1, 100));
    assertThat(cost).isEqualTo(100 + Cbi1.QUEUED_FRAME_OVERHEAD);
    PoolFrameQueue byBytes = new PoolFrameQueue(16, 2 * cost, 0);
    byBytes.add(delta(1, 100), cost);
    assertThat(byBytes.overflow(cost)).isNull();
    assertThat(byBytes.overflow(cost + 1)).isEqualTo("queued bytes " + cost + " + " + (cost + 1) + " exceed "
        + 2 * cost);
  }

  @Test
  void clearedQueueIsEmptyAndItsPublishedViewFallsBackToTheLastSequenceSent() {
    PoolFrameQueue q = new PoolFrameQueue(8, Long.MAX_VALUE, 3);
    for (long s = 4; s <= 7; s++) {
      q.add(delta(s, 10), PoolFrameQueue.cost(delta(s, 10)));
    }
    assertThat(q.take()).isNotNull();
    q.clear(4);
    assertThat(q.take()).isNull();
    assertThat(q.size()).isZero();
    assertThat(q.bytes()).isZero();
    assertThat(q.sizeView()).isZero();
    assertThat(q.bytesView()).isZero();
    assertThat(q.publishedSeqView()).isEqualTo(4);
    assertThat(q.deliveredSeqView()).isEqualTo(4);
  }

  @Test
  void bootstrapServesEveryChunkOnlyWithThePermitAndEndsAtTheLast() {
    long[] copy = new long[Cbi1.SNAPSHOT_CHUNK_BUCKETS * 2 + 1];
    SnapshotBootstrap b = new SnapshotBootstrap(copy);
    int chunks = Cbi1.chunkCount(copy.length);
    assertThat(chunks).isEqualTo(3);
    assertThat(b.pendingChunksView()).isEqualTo(3);
    assertThat(b.waitingForPermit()).isTrue();
    assertThat(b.encodableCopy()).isNull();
    b.grant(100);
    assertThat(b.holdsPermit()).isTrue();
    assertThat(b.progressDeadline()).isEqualTo(100);
    for (int i = 0; i < chunks; i++) {
      assertThat(b.encodableCopy()).isSameAs(copy);
      assertThat(b.nextChunk()).isEqualTo(i);
      assertThat(b.chunkTaken(200 + i)).isEqualTo(i == chunks - 1);
      assertThat(b.pendingChunksView()).isEqualTo(chunks - 1 - i);
      assertThat(b.progressDeadline()).isEqualTo(200 + i);
    }
    assertThat(b.done()).isTrue();
    assertThat(b.permitState()).isEqualTo(SnapshotBootstrap.NONE);
    assertThat(b.encodableCopy()).isNull();
  }

  @Test
  void heartbeatClockKeepsOneTimerArmedAndIsDueOneIntervalAfterTheLastTake() {
    List<Long> scheduled = new ArrayList<>();
    ActorScheduler timers = new ActorScheduler() {
      @Override
      public void execute(Runnable task) {
        throw new AssertionError("not used");
      }

      @Override
      public void schedule(Runnable task, long delayNanos) {
        scheduled.add(delayNanos);
      }
    };
    HeartbeatClock c = new HeartbeatClock(1_000, timers, () -> { });
    c.taken(50);
    assertThat(scheduled).isEmpty();
    assertThat(c.due(1_049)).isFalse();
    assertThat(c.due(1_050)).isTrue();
    c.takenAndArm(2_000);
    c.takenAndArm(2_500);
    assertThat(scheduled).containsExactly(1_000L);
    assertThat(c.untilDue(3_000)).isEqualTo(500);
    c.fired();
    c.arm(c.untilDue(3_000));
    c.arm();
    assertThat(scheduled).containsExactly(1_000L, 500L);
  }

  @Test
  void slotInitHandsItsPermitAndWaitersOutOnce() {
    SlotInit init = new SlotInit();
    assertThat(init.takePermit()).isFalse();
    var f = init.start(7);
    assertThat(init.pendingLease()).isEqualTo(7);
    assertThat(init.future()).isSameAs(f);
    init.restart(9);
    assertThat(init.pendingLease()).isEqualTo(9);
    assertThat(init.takePermit()).isTrue();
    assertThat(init.takePermit()).isFalse();
    assertThat(init.takeFuture()).isSameAs(f);
    assertThat(init.takeFuture()).isNull();
    assertThat(init.future()).isNull();
  }
}
