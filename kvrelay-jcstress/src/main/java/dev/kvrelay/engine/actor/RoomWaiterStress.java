package dev.kvrelay.engine.actor;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Not thread-safe by itself (each nested class is one jcstress state): the {@link PoolActor}'s backpressure
 * hand-off, {@link PoolActor#roomFor} (publish the waiter, then re-check room) against the actor's task freeing
 * room and then reading the waiter ({@code wakeWaiter}, after each command and in the task's {@code finally}).
 */
public final class RoomWaiterStress {
  private RoomWaiterStress() {}

  /** Mailbox of 8: the control reserve is 8 / 8 = 1, so an Apply finds room while fewer than 7 are queued. */
  static final int MAILBOX = 8;

  static RouterEvent cleared() {
    return new RouterEvent(7, StorageTier.DEVICE, ResidencyDomain.WORKER, 1, 0, KvEventData.Cleared.INSTANCE);
  }

  static PoolActor actor(ActorScheduler scheduler) {
    return PoolActorStress.actor(scheduler, PoolActorStress.mailbox(MAILBOX));
  }

  /** Commands queued at which an Apply no longer finds room: the mailbox less its control reserve. */
  static final int APPLY_LIMIT = MAILBOX - MAILBOX / 8;

  /** Queues {@code commands} Stats commands on {@code actor} (fewer than the mailbox holds); its task is queued. */
  static void fill(PoolActor actor, int commands) {
    for (int i = 0; i < commands; i++) {
      submitStats(actor, "command " + i + " of " + commands);
    }
  }

  /** Submits one Stats command; a refusal is a broken set-up ({@code what} names the command). */
  static void submitStats(PoolActor actor, String what) {
    if (!(actor.submit(new PoolCommand.Stats(new CompletableFuture<>())) instanceof SubmitResult.Accepted)) {
      throw new AssertionError("a mailbox of " + MAILBOX + " refused " + what);
    }
  }

  /**
   * Not thread-safe (a jcstress state): the mailbox is at the Apply limit and the actor's task is queued. The
   * feeder asks {@code roomFor} while an executor thread runs the task, which takes the 7 commands and frees room.
   * Either the feeder's check or re-check sees room, or the waiter it published runs (exactly once); the outcome
   * "waiter registered, room freed, nobody woke" ({@code 0, 0}) is the lost wake-up the re-check exists to prevent.
   * {@code 1, 1} is a harmless extra wake-up: the waiter was published, the task woke it, and the re-check also saw
   * the room.
   */
  @JCStressTest
  @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "room seen (first check or re-check), waiter not needed")
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "re-check saw room, and the task also ran the waiter")
  @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "no room seen; the task ran the waiter once")
  @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "waiter registered, room freed, nobody woke (lost wake-up)")
  @Outcome(expect = FORBIDDEN, desc = "the waiter ran more than once")
  @State
  public static class RoomForWhileTaskFreesRoom {
    final PoolActorStress.HandOffScheduler scheduler = new PoolActorStress.HandOffScheduler();
    final PoolActor actor = actor(scheduler);
    final RouterEvent event = cleared();
    final AtomicInteger wakes = new AtomicInteger();
    final Runnable waiter = wakes::incrementAndGet;

    {
      fill(actor, APPLY_LIMIT);
    }

    @Actor
    public void feeder(II_Result r) {
      r.r1 = actor.roomFor(event, waiter) ? 1 : 0;
    }

    @Actor
    public void executorThread() {
      scheduler.runOne();
    }

    @Arbiter
    public void quiesce(II_Result r) {
      scheduler.runAll();
      r.r2 = wakes.get();
    }
  }

  /**
   * Not thread-safe (a jcstress state): the same hand-off when the room comes from a command that is submitted
   * and run concurrently, not from one already queued: the mailbox is one below the Apply limit, a second
   * submitter adds the seventh command and then runs the actor's task. If the feeder saw no room, the waiter must
   * run once the task took the commands.
   */
  @JCStressTest
  @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "room seen (before the seventh command or after the task)")
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "re-check saw room, and the task also ran the waiter")
  @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "no room seen; the task ran the waiter once")
  @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "waiter registered, room freed, nobody woke (lost wake-up)")
  @Outcome(expect = FORBIDDEN, desc = "the waiter ran more than once")
  @State
  public static class RoomForWhileSubmitterFillsAndRuns {
    final PoolActorStress.HandOffScheduler scheduler = new PoolActorStress.HandOffScheduler();
    final PoolActor actor = actor(scheduler);
    final RouterEvent event = cleared();
    final AtomicInteger wakes = new AtomicInteger();
    final Runnable waiter = wakes::incrementAndGet;

    {
      fill(actor, APPLY_LIMIT - 1);
    }

    @Actor
    public void feeder(II_Result r) {
      r.r1 = actor.roomFor(event, waiter) ? 1 : 0;
    }

    @Actor
    public void submitterThenExecutorThread() {
      submitStats(actor, "the command that reaches the Apply limit");
      scheduler.runOne();
    }

    @Arbiter
    public void quiesce(II_Result r) {
      scheduler.runAll();
      r.r2 = wakes.get();
    }
  }
}
