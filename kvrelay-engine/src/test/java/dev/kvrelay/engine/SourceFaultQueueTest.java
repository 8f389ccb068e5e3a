package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.FaultKind;
import dev.kvrelay.engine.actor.SourceFault;
import org.junit.jupiter.api.Test;

/** The host's pending-fault queue (producer.md §3.5): one slot per source, 16 sources at most, fences on demand. */
class SourceFaultQueueTest {

  @Test
  void oneSlotPerSourceAndOneScheduledTakeAtATime() {
    SourceFaultQueue q = new SourceFaultQueue();
    assertThat(q.offer(new SourceFault(new MemberId(1, 0), 7, FaultKind.PARENT_BLOCK_NOT_FOUND))).isTrue();
    assertThat(q.offer(new SourceFault(new MemberId(1, 0), 7, FaultKind.INVALID_BLOCK_SEQUENCE))).isFalse();
    assertThat(q.offer(new SourceFault(new MemberId(2, 0), 8, FaultKind.MEMBER_MISMATCH))).isFalse();
    SourceFaultQueue.Taken t = q.take();
    assertThat(t.faults()).extracting(SourceFault::kind)
        .containsExactly(FaultKind.PARENT_BLOCK_NOT_FOUND, FaultKind.MEMBER_MISMATCH);
    assertThat(t.fence()).isFalse();
    assertThat(t.overflow()).isFalse();
    assertThat(q.offer(new SourceFault(new MemberId(1, 0), 7, FaultKind.PARENT_BLOCK_NOT_FOUND)))
        .as("a take re-arms scheduling").isTrue();
  }

  @Test
  void capacityOmissionsAreNeverQueued() {
    SourceFaultQueue q = new SourceFaultQueue();
    assertThat(q.offer(new SourceFault(new MemberId(1, 0), 7, FaultKind.CAPACITY_EXHAUSTED))).isFalse();
    assertThat(q.take().faults()).isEmpty();
  }

  @Test
  void moreThanSixteenDistinctSourcesAskForAFenceAndMemoryStaysBounded() {
    SourceFaultQueue q = new SourceFaultQueue();
    for (int w = 0; w < 1000; w++) {
      q.offer(new SourceFault(new MemberId(w, 0), w, FaultKind.PARENT_BLOCK_NOT_FOUND));
    }
    SourceFaultQueue.Taken t = q.take();
    assertThat(t.faults()).hasSize(SourceFaultQueue.MAX_PENDING_SOURCE_FAULTS);
    assertThat(t.overflow()).isTrue();
    SourceFaultQueue q2 = new SourceFaultQueue();
    for (int w = 0; w < SourceFaultQueue.MAX_PENDING_SOURCE_FAULTS; w++) {
      q2.offer(new SourceFault(new MemberId(w, 0), w, FaultKind.PARENT_BLOCK_NOT_FOUND));
    }
    assertThat(q2.take().overflow()).as("exactly 16 sources is still within the cap").isFalse();
  }

  @Test
  void anInvariantViolationAsksForAFence() {
    SourceFaultQueue q = new SourceFaultQueue();
    q.offer(new SourceFault(new MemberId(1, 0), 7, FaultKind.INDEXER_INVARIANT_VIOLATION));
    SourceFaultQueue.Taken t = q.take();
    assertThat(t.fence()).isTrue();
    assertThat(t.faults()).isEmpty();
  }
}
