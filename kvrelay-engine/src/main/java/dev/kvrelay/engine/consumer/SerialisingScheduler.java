package dev.kvrelay.engine.consumer;

import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.SerialTask;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * Thread-safe ({@link #execute} and {@link #schedule} from any thread; the tasks run one at a time): the scheduler
 * that makes a caller's executor a single consumer task. Every task goes into one FIFO queue drained by one
 * {@link SerialTask} on the target, so tasks run one at a time, in submission order, each happening-after the one
 * before, however many threads the target's executor has — the consumer's state is confined to its task (its
 * source watches, pool sessions and sweeps are separate tasks and would otherwise run concurrently on a pool).
 *
 * <p>A timer goes to the target's timer and, when due, joins the queue. A task that throws a
 * {@link RuntimeException} is handed to the error handler and the queue goes on with the next task (one bad task
 * neither stops nor delays the others). A batch of {@value #BATCH} tasks ends a run: the queue yields the target's
 * thread and is scheduled again behind the target's other work.
 */
final class SerialisingScheduler implements ActorScheduler {
  /** Tasks per run before the queue yields its thread. */
  static final int BATCH = 64;

  private final ActorScheduler target;
  private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final Consumer<RuntimeException> onError;
  private final SerialTask drain;

  /**
   * A queue over {@code target}.
   *
   * @param onError receives each exception a task throws, on the consumer task (it must not block or throw)
   */
  SerialisingScheduler(ActorScheduler target, Consumer<RuntimeException> onError) {
    this.target = Objects.requireNonNull(target, "target");
    this.onError = Objects.requireNonNull(onError, "onError");
    this.drain = new SerialTask(target, this::runBatch, onError);
  }

  @Override
  public void execute(Runnable task) {
    queue.add(Objects.requireNonNull(task, "task"));
    drain.signal();
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    Objects.requireNonNull(task, "task");
    target.schedule(() -> execute(task), delayNanos);
  }

  /** Tasks queued and not yet run (diagnostics). */
  int pending() {
    return queue.size();
  }

  private boolean runBatch() {
    for (int i = 0; i < BATCH; i++) {
      Runnable task = queue.poll();
      if (task == null) {
        return false;
      }
      try {
        task.run();
      } catch (RuntimeException e) {
        onError.accept(e);
      }
    }
    return !queue.isEmpty();
  }
}
