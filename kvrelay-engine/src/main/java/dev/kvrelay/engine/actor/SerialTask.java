package dev.kvrelay.engine.actor;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe ({@link #signal()} from any thread; the body confined to the task): the engine's one "schedule once,
 * then drain" primitive, a serial task on an {@link ActorScheduler} that runs a body whenever it is signalled.
 *
 * <p>Contract:
 * <ul>
 *   <li>At most one run at a time: the body is confined to the task (each run happens-after the previous one ends),
 *       even on a multi-threaded executor.
 *   <li>No lost wake-up: work published (through a volatile or atomic write) before a {@link #signal()} is seen by a
 *       run that starts after the signal. A signal while the body runs causes one more run after it; signals while
 *       a run is only scheduled are absorbed by that run.
 *   <li>Fairness: the body drains a bounded batch and returns whether work is left; if so the run yields and the
 *       task is scheduled again behind whatever else the executor has queued.
 *   <li>An error never kills the loop (as an Agrona agent's duty cycle): a {@link RuntimeException} of the body is
 *       counted in {@link #failures()} and handed to the error handler, the run ends as if the body had reported no
 *       work left (a signal during it still causes the next run), and the next signal runs the body again. A
 *       handler that throws is logged. An {@link Error} propagates to the executor after the task's state is
 *       released (the same rules apply to the next signal).
 * </ul>
 * A task whose scheduler drops a run (an executor shut down) stays scheduled and runs no more.
 */
public final class SerialTask {
  private static final Logger LOG = LoggerFactory.getLogger(SerialTask.class);

  /** Idle: the next signal schedules a run. */
  private static final int IDLE = 0;
  /** A run is queued on the scheduler and has not started: signals are absorbed by it. */
  private static final int SCHEDULED = 1;
  /** The body runs; a signal moves to {@link #SIGNALLED}. */
  private static final int RUNNING = 2;
  /** The body runs and was signalled since it started: another run follows. */
  private static final int SIGNALLED = 3;

  /** Confined to the task: one bounded batch of work. */
  @FunctionalInterface
  public interface Body {
    /** Drains a bounded batch; true if work is left (the task yields and runs again). */
    boolean runBatch();
  }

  private final ActorScheduler scheduler;
  private final Body body;
  private final Consumer<RuntimeException> onError;
  private final AtomicInteger state = new AtomicInteger(IDLE);
  private final LongAdder failures = new LongAdder();
  private final Runnable run = this::run;

  /**
   * An idle task.
   *
   * @param scheduler where the runs execute (only {@link ActorScheduler#execute} is used)
   * @param body the batch, confined to the task
   * @param onError receives every exception of the body, on the task (it must not block)
   */
  public SerialTask(ActorScheduler scheduler, Body body, Consumer<RuntimeException> onError) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.body = Objects.requireNonNull(body, "body");
    this.onError = Objects.requireNonNull(onError, "onError");
  }

  /** Asks for a run after the work published so far; never runs the body inline. Any thread; never blocks. */
  public void signal() {
    for (;;) {
      int s = state.get();
      if (s == IDLE) {
        if (state.compareAndSet(IDLE, SCHEDULED)) {
          scheduler.execute(run);
          return;
        }
      } else if (s == RUNNING) {
        if (state.compareAndSet(RUNNING, SIGNALLED)) {
          return;
        }
      } else {
        return; // SCHEDULED or SIGNALLED: a run that has not yet looked at the work is still to come
      }
    }
  }

  /** Exceptions the body threw so far. Any thread. */
  public long failures() {
    return failures.sum();
  }

  private void run() {
    // SCHEDULED → RUNNING before the body reads any work: a signal from now on asks for another run.
    state.set(RUNNING);
    boolean more = false;
    try {
      more = body.runBatch();
    } catch (RuntimeException e) {
      failures.increment();
      try {
        onError.accept(e);
      } catch (RuntimeException handlerFailure) {
        LOG.error("serial task: the error handler failed", handlerFailure);
      }
    } finally {
      if (more || !state.compareAndSet(RUNNING, IDLE)) {
        // Work left, or signalled while running (SIGNALLED): one more run, which absorbs the signal.
        state.set(SCHEDULED);
        scheduler.execute(run);
      }
    }
  }
}
