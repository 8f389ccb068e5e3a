package dev.kvrelay.engine.recovery;

import static dev.kvrelay.engine.recovery.RecoveryFixture.MEMBER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.PUBLISHER;
import static dev.kvrelay.engine.recovery.RecoveryFixture.liveOnly;
import static dev.kvrelay.engine.recovery.RecoveryFixture.stored;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.actor.ManualScheduler;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.RejectReason;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The recovery holds an event the pool actor refused, and the actor already has room again when asked (so it never
 * calls the room waiter): the recovery must re-run by itself and re-feed the held event, with nothing else
 * arriving to wake it.
 */
class PoolRecoveryRoomAlreadyTest {
  @Test
  void anEventRefusedWhileTheActorAlreadyHasRoomAgainIsReFedWithoutAWake() {
    ManualScheduler scheduler = new ManualScheduler();
    List<Long> applied = new ArrayList<>();
    // Refused twice: once when it arrives (held), once when the same run re-feeds it, which ends the run's pass over
    // the held sources with the event held again although the actor has room.
    int[] refusals = {2};
    int[] waiters = {0};
    PoolCommandSink sink = new PoolCommandSink() {
      @Override
      public SubmitResult submit(PoolCommand command) {
        if (command instanceof PoolCommand.Apply a) {
          if (refusals[0] > 0) {
            refusals[0]--;
            return new SubmitResult.Rejected(RejectReason.MAILBOX_FULL);
          }
          applied.add(a.event().eventId());
        }
        return SubmitResult.Accepted.INSTANCE;
      }

      @Override
      public boolean roomFor(RouterEvent event, Runnable onRoom) {
        waiters[0]++; // room always: the waiter is never run
        return true;
      }
    };
    PoolRecovery recovery = new PoolRecovery(RecoveryFixture.POOL, RecoverySettings.DEFAULTS, sink, null,
        new Semaphore(16), scheduler, scheduler::now, TimeUnit.MILLISECONDS.toNanos(1));
    recovery.updateSources(List.of(liveOnly(MEMBER, PUBLISHER)));
    scheduler.runReady();
    recovery.onLiveEvent(new EventEnvelope(PUBLISHER, 0, 0, EventTopics.KV_EVENTS), stored(1));
    scheduler.runReady(); // refused and held; the actor answers "room" at once and nobody else signals

    assertThat(refusals[0]).as("both refusals were used").isZero();
    assertThat(waiters[0]).as("the recovery asked the actor for room").isPositive();
    assertThat(applied).as("the held event was re-fed by the recovery's own next run").containsExactly(1L);
    assertThat(recovery.stats().applied()).isEqualTo(1);
    recovery.close();
  }
}
