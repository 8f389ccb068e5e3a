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
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Not thread-safe by itself (each nested class is one jcstress state): the wake-up hand-off between the real
 * {@link RecoveryTask} (its {@code SerialTask}: a signal while a run is under way causes one more run) and the
 * real {@link PoolActor}'s {@code roomFor}/{@code wakeWaiter}, wired as {@code PoolRuntime} wires them (the sink
 * forwards {@code roomFor} to the actor). A live event the actor has no room for stays in the inbox; the actor must
 * wake the task once room frees, whether the wake comes while the task still runs (the wake's signal then asks for
 * one more run) or after it ended (the signal schedules a run).
 */
public final class RecoveryWakeStress {
  private RecoveryWakeStress() {}

  /** Mailbox of 8: the control reserve is 1, so an Apply finds room while fewer than 7 commands are queued. */
  static final int MAILBOX = 8;

  static KvPoolId pool() {
    byte[] bytes = new byte[16];
    Arrays.fill(bytes, (byte) 0x11);
    DigestIdentity digest = new DigestIdentity(bytes, IdentitySource.EXPLICIT);
    return new KvPoolId(new IndexerDomainId(digest, digest), DcId.of(3));
  }

  static PoolActor actor(ActorScheduler scheduler) {
    return PoolActorStress.actor(scheduler, PoolActorStress.mailbox(MAILBOX));
  }

  /**
   * Not thread-safe (a jcstress state): the actor's mailbox is at the Apply limit (7 Stats commands, its task
   * queued) and one live event sits in the recovery's inbox (its run queued). One thread runs the recovery's run
   * (peek, {@code roomFor}, either hand the event on or hold it and exit), the other runs the actor's task (takes
   * the 7 commands, freeing room, and wakes the waiter). The arbiter then runs whatever either scheduler still has
   * queued, until both are idle, as the executor eventually would. The event must have been handed on: a held
   * event with nothing scheduled ({@code 0, …}) is the lost wake-up ("waiter registered, room freed, nobody
   * woke"). r1: events handed on; r2: recovery runs scheduled (1: the first run had room; 2: it held the event, or its re-check saw
   * room and the wake still came, and a second run followed); r3: times the actor ran the recovery's waiter.
   */
  @JCStressTest
  @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the first run found room (the actor task freed it first)")
  @Outcome(id = "1, 2, 1", expect = ACCEPTABLE,
      desc = "the first run published the waiter; the actor woke it and a second run handed the event on")
  @Outcome(id = "1, [1-9], [01]", expect = ACCEPTABLE, desc = "handed on once; a spurious extra run or wake")
  @Outcome(id = "0, .*", expect = FORBIDDEN, desc = "event held, room freed, nobody woke the task (lost wake-up)")
  @Outcome(expect = FORBIDDEN, desc = "the event was handed on twice, or the waiter ran more than once")
  @State
  public static class HeldEventWokenByActor {
    final PoolActorStress.HandOffScheduler actorScheduler = new PoolActorStress.HandOffScheduler();
    final PoolActorStress.HandOffScheduler recoveryScheduler = new PoolActorStress.HandOffScheduler();
    final PoolActor actor = actor(actorScheduler);
    final AtomicInteger wakes = new AtomicInteger();
    final AtomicInteger handedOn = new AtomicInteger();
    final PoolCommandSink sink = new PoolCommandSink() {
      @Override
      public SubmitResult submit(PoolCommand command) {
        return actor.submit(command);
      }

      @Override
      public boolean roomFor(RouterEvent event, Runnable onRoom) {
        return actor.roomFor(event, () -> {
          wakes.incrementAndGet();
          onRoom.run();
        });
      }
    };
    final RecoveryTask task = new RecoveryTask(pool(), recoveryScheduler, sink, new Counters(), 0L,
        (envelope, event) -> handedOn.incrementAndGet(), () -> true, null);

    {
      for (int i = 0; i < MAILBOX - MAILBOX / 8; i++) {
        if (!(actor.submit(new PoolCommand.Stats(new CompletableFuture<>())) instanceof SubmitResult.Accepted)) {
          throw new AssertionError("an empty mailbox of " + MAILBOX + " refused command " + i);
        }
      }
      task.offerLive(new EventEnvelope(1, 1, 0, "kv-events"), LiveInboxStress.event(1));
    }

    @Actor
    public void recoveryThread() {
      recoveryScheduler.runOne();
    }

    @Actor
    public void actorThread() {
      actorScheduler.runOne();
    }

    @Arbiter
    public void quiesce(III_Result r) {
      boolean ran;
      do {
        ran = recoveryScheduler.runAll();
        ran |= actorScheduler.runAll();
      } while (ran);
      r.r1 = handedOn.get();
      r.r2 = recoveryScheduler.executes.get();
      r.r3 = wakes.get();
    }
  }
}
