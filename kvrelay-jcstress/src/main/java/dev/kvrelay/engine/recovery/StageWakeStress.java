package dev.kvrelay.engine.recovery;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.PoolActor;
import dev.kvrelay.engine.actor.PoolActorStress;
import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Not thread-safe by itself (each nested class is one jcstress state): the one hand-off between a delivery thread
 * and the pool's single writer, with the real {@link RecoveryTask} attached as the real {@link PoolActor}'s ingest
 * stage, as the engine wires them ({@code PoolRecovery.onActor}). A live event offered while the actor's task is
 * queued, running or just ending must be taken from the inbox by a run of that task: the offer's signal is
 * absorbed by a run that has not looked yet, asks a running one for one more run, or schedules a run.
 */
public final class StageWakeStress {
  private StageWakeStress() {}

  static KvPoolId pool() {
    byte[] bytes = new byte[16];
    Arrays.fill(bytes, (byte) 0x11);
    DigestIdentity digest = new DigestIdentity(bytes, IdentitySource.EXPLICIT);
    return new KvPoolId(new IndexerDomainId(digest, digest), DcId.of(3));
  }

  /** A real actor with a mailbox of 8 on {@code scheduler}. */
  static PoolActor actor(ActorScheduler scheduler) {
    return PoolActorStress.actor(scheduler, PoolActorStress.mailbox(8));
  }

  /**
   * Not thread-safe (a jcstress state): the stage is attached and idle, a Stats command has queued one run of the
   * actor's task. One thread offers a live event (the delivery thread), the other runs that queued run (the pool's
   * thread). The arbiter then runs whatever is still queued, as the executor eventually would. r1: events taken from
   * the inbox by the stage (must be 1: 0 is the lost wake-up, the event stranded in the inbox with no run to come);
   * r2: runs of the actor's task handed to the scheduler after the set-up.
   */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the queued run took the event (or the offer's signal was absorbed)")
  @Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "the event came during or after the run: one more run took it")
  @Outcome(id = "0, .*", expect = FORBIDDEN, desc = "the event stranded in the inbox (lost wake-up)")
  @Outcome(expect = FORBIDDEN, desc = "the event was taken twice, or runs were scheduled without a signal")
  @State
  public static class OfferWhileTheActorRuns {
    final PoolActorStress.HandOffScheduler scheduler = new PoolActorStress.HandOffScheduler();
    final PoolActor actor = actor(scheduler);
    final AtomicInteger taken = new AtomicInteger();
    final RecoveryTask task =
        new RecoveryTask(pool(), scheduler, new Counters(), 0L, (envelope, event) -> taken.incrementAndGet(), actor);
    final int executesBefore;

    {
      task.start();
      scheduler.runAll(); // the run the attachment asked for
      if (!(actor.submit(new PoolCommand.Stats(new CompletableFuture<>())) instanceof SubmitResult.Accepted)) {
        throw new AssertionError("an empty mailbox refused a Stats command");
      }
      executesBefore = scheduler.executes.get();
    }

    @Actor
    public void deliveryThread() {
      task.offerLive(new EventEnvelope(1, 1, 0, "kv-events"), LiveInboxStress.event(1));
    }

    @Actor
    public void poolThread() {
      scheduler.runOne();
    }

    @Arbiter
    public void quiesce(II_Result r) {
      scheduler.runAll();
      r.r1 = taken.get();
      r.r2 = scheduler.executes.get() - executesBefore + 1;
    }
  }
}
