package dev.kvrelay.engine.actor;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.engine.stats.PoolStats;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Not thread-safe by itself (each nested class is one jcstress state): the {@link PoolActor}'s running flag,
 * its "schedule once, then drain" hand-off between submitting threads and the actor's serial task.
 */
public final class PoolActorStress {
  private PoolActorStress() {}

  /**
   * Thread-safe: an {@link ActorScheduler} whose tasks queue until a test thread takes one, so that both jcstress
   * actors can act as threads of a multi-threaded executor (the running flag, not the executor, must keep the
   * actor's task serial). No step of these tests arms a timer. Shared by every jcstress test of the actor and the
   * recovery.
   */
  public static final class HandOffScheduler implements ActorScheduler {
    final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Tasks handed to this scheduler so far. */
    public final AtomicInteger executes = new AtomicInteger();

    @Override
    public void execute(Runnable task) {
      executes.incrementAndGet();
      tasks.add(task);
    }

    @Override
    public void schedule(Runnable task, long delayNanos) {
      throw new AssertionError("no step of these tests arms a timer");
    }

    /** Runs the oldest queued task on the calling thread, if there is one. */
    public void runOne() {
      Runnable task = tasks.poll();
      if (task != null) {
        task.run();
      }
    }

    /** Runs queued tasks (and the ones they queue) until none is left; true if it ran any. */
    public boolean runAll() {
      boolean ran = false;
      Runnable task;
      while ((task = tasks.poll()) != null) {
        task.run();
        ran = true;
      }
      return ran;
    }
  }

  /**
   * Thread-safe: a Stats reply completed from inside the actor's task; it records whether another command of
   * the same actor was being completed at the same moment (two tasks of one actor running at once).
   */
  static final class OverlapReply extends CompletableFuture<PoolStats.Actor> {
    private final AtomicInteger inside;
    private final AtomicInteger overlaps;

    OverlapReply(AtomicInteger inside, AtomicInteger overlaps) {
      this.inside = inside;
      this.overlaps = overlaps;
    }

    @Override
    public boolean complete(PoolStats.Actor value) {
      if (inside.getAndIncrement() != 0) {
        overlaps.incrementAndGet();
      }
      try {
        return super.complete(value);
      } finally {
        inside.decrementAndGet();
      }
    }
  }

  static PoolActor actor(ActorScheduler scheduler) {
    return actor(scheduler, PoolActorConfig.DEFAULTS);
  }

  /** A real pool actor on {@code scheduler} over a small producer (2 buckets), publications always taken. */
  public static PoolActor actor(ActorScheduler scheduler, PoolActorConfig actorConfig) {
    CkfProducerConfig config;
    try {
      config = CkfProducerConfig.of(CkfFormat.withDefaultSeed(2), 500, 16);
    } catch (CkfConfigException e) {
      throw new AssertionError(e);
    }
    return PoolActor.start(CkfProducer.create(config), actorConfig, scheduler, p -> true, f -> { });
  }

  /** An actor config with a mailbox of {@code mailbox} commands and the default permits and delay. */
  public static PoolActorConfig mailbox(int mailbox) {
    return new PoolActorConfig(mailbox, PoolActorConfig.DEFAULT_PENDING_BLOCK_PERMITS,
        PoolActorConfig.DEFAULT_PUBLICATION_DELAY_NANOS);
  }

  /**
   * Not thread-safe (a jcstress state): one command is queued and its task scheduled; the executor thread
   * runs that task while a second thread submits another command and then also takes a task from the
   * executor. Whatever the interleaving, both commands run and never two tasks of the actor at once. One task
   * runs in total when the first task took the second command, two when the second command came after the
   * first task cleared the flag (the submitter's CAS or the task's own re-check schedules it, never both while
   * one is busy). Three is a harmless spurious wake-up: the exiting first task saw the second command still
   * queued, the second task took it and ended, and only then did the first task's re-check win the flag and
   * schedule a task that finds nothing (its re-check reads a stale "work pending"; it never overlaps).
   */
  @JCStressTest
  @Outcome(id = "2, 0, 1", expect = ACCEPTABLE, desc = "the running task also took the second command")
  @Outcome(id = "2, 0, 2", expect = ACCEPTABLE, desc = "the second command scheduled a second task")
  @Outcome(id = "2, 0, 3", expect = ACCEPTABLE, desc = "a stale re-check scheduled an empty third task")
  @Outcome(expect = FORBIDDEN, desc = "a command was stranded (lost wake-up) or two tasks overlapped")
  @State
  public static class SubmitWhileTaskExits {
    final HandOffScheduler scheduler = new HandOffScheduler();
    final PoolActor actor = actor(scheduler);
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();
    final OverlapReply first = new OverlapReply(inside, overlaps);
    final OverlapReply second = new OverlapReply(inside, overlaps);

    {
      if (!(actor.submit(new PoolCommand.Stats(first)) instanceof SubmitResult.Accepted)) {
        throw new AssertionError("an empty mailbox refused a command");
      }
    }

    @Actor
    public void executorThread() {
      scheduler.runOne();
    }

    @Actor
    public void submitterThenExecutorThread() {
      if (!(actor.submit(new PoolCommand.Stats(second)) instanceof SubmitResult.Accepted)) {
        throw new AssertionError("a mailbox of 256 refused the second command");
      }
      scheduler.runOne();
    }

    @Arbiter
    public void quiesce(III_Result r) {
      scheduler.runAll();
      r.r1 = (first.isDone() ? 1 : 0) + (second.isDone() ? 1 : 0);
      r.r2 = overlaps.get();
      r.r3 = scheduler.executes.get();
    }
  }

  /**
   * Not thread-safe (a jcstress state): two threads submit at once to an idle actor, then each takes a task
   * from the executor. One submission wins each idle-to-busy transition; both commands run, never in two
   * overlapping tasks (three tasks: the stale re-check of {@link SubmitWhileTaskExits}).
   */
  @JCStressTest
  @Outcome(id = "2, 0, 1", expect = ACCEPTABLE, desc = "one task ran both commands")
  @Outcome(id = "2, 0, 2", expect = ACCEPTABLE, desc = "the first task ended before the second submission")
  @Outcome(id = "2, 0, 3", expect = ACCEPTABLE, desc = "a stale re-check scheduled an empty third task")
  @Outcome(expect = FORBIDDEN, desc = "a command was stranded (lost wake-up) or two tasks overlapped")
  @State
  public static class TwoSubmittersOnIdleActor {
    final HandOffScheduler scheduler = new HandOffScheduler();
    final PoolActor actor = actor(scheduler);
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();
    final OverlapReply first = new OverlapReply(inside, overlaps);
    final OverlapReply second = new OverlapReply(inside, overlaps);

    @Actor
    public void submitterA() {
      if (!(actor.submit(new PoolCommand.Stats(first)) instanceof SubmitResult.Accepted)) {
        throw new AssertionError("an empty mailbox refused a command");
      }
      scheduler.runOne();
    }

    @Actor
    public void submitterB() {
      if (!(actor.submit(new PoolCommand.Stats(second)) instanceof SubmitResult.Accepted)) {
        throw new AssertionError("an empty mailbox refused a command");
      }
      scheduler.runOne();
    }

    @Arbiter
    public void quiesce(III_Result r) {
      scheduler.runAll();
      r.r1 = (first.isDone() ? 1 : 0) + (second.isDone() ? 1 : 0);
      r.r2 = overlaps.get();
      r.r3 = scheduler.executes.get();
    }
  }
}
