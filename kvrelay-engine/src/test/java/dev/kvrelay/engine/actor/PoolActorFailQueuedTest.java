package dev.kvrelay.engine.actor;

import static dev.kvrelay.engine.actor.ActorFixture.cleared;
import static dev.kvrelay.engine.actor.ActorFixture.removed;
import static dev.kvrelay.engine.actor.ActorFixture.stored;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.stats.PoolStats.ActorState;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Not thread-safe: confined to the test thread. {@code PoolActor.failQueued}: the commands still queued behind a
 * Fence are run on the closed actor before the fence completes — every kind answered or ignored as a closed actor
 * answers it, the Apply permits returned.
 */
class PoolActorFailQueuedTest {

  /** What the fence's completion saw, captured on the actor's task the moment the fence completed. */
  private record AtFence(boolean subscribeDone, boolean statsDone, boolean wordsDone, long permits) {}

  private static void accepted(SubmitResult r) {
    assertThat(r).isInstanceOf(SubmitResult.Accepted.class);
  }

  @Test
  void aFenceOnARunningActorAnswersEveryQueuedKindBeforeItCompletes() {
    ActorFixture f = new ActorFixture();
    // The actor is running and idle; now queue one command of every kind without running the task.
    RouterEvent three = stored(1, 0, 0, 11, 1, 12, 2, 13, 3);
    accepted(f.apply(three));
    accepted(f.apply(removed(1, 0, 11, 12)));
    accepted(f.apply(cleared(1, 0)));
    accepted(f.actor.submit(PoolCommand.Flush.INSTANCE));
    accepted(f.actor.submit(new PoolCommand.ResetRank(new MemberId(1, 0), false)));
    accepted(f.actor.submit(new PoolCommand.ReplaceRanks(List.of())));
    CompletableFuture<BarrierSnapshot> subscribe = new CompletableFuture<>();
    accepted(f.actor.submit(new PoolCommand.Subscribe(7, subscribe)));
    accepted(f.actor.submit(new PoolCommand.RetireLease(7)));
    CompletableFuture<PoolStats.Actor> stats = new CompletableFuture<>();
    accepted(f.actor.submit(new PoolCommand.Stats(stats)));
    CompletableFuture<long[]> words = new CompletableFuture<>();
    accepted(f.actor.submit(new PoolCommand.CopyWords(words)));
    assertThat(f.actor.permitsInUse()).as("permits held by the three queued Applies").isEqualTo(3 + 2 + 1);

    List<AtFence> seen = new ArrayList<>();
    CompletableFuture<Void> fenced = f.actor.fence();
    CompletableFuture<Void> unused = fenced.thenRun(() -> seen.add(
        new AtFence(subscribe.isDone(), stats.isDone(), words.isDone(), f.actor.permitsInUse())));
    f.scheduler.runReady();

    assertThat(fenced).isDone();
    assertThat(seen).as("the queued commands were answered when the fence completed")
        .containsExactly(new AtFence(true, true, true, 0));
    assertThat(subscribe).isCompletedExceptionally();
    assertThat(reason(subscribe)).isEqualTo(PoolActorException.Reason.FENCED);
    PoolStats.Actor s = stats.join();
    assertThat(s.state()).isEqualTo(ActorState.FENCED);
    assertThat(s.ignoredWhileClosed()).as("the three Applies ignored on the fenced actor").isEqualTo(3);
    assertThat(s.appliedEvents()).isZero();
    assertThat(words.join()).isNotNull();
    assertThat(f.published).as("a fence publishes nothing").isEmpty();
    assertThat(f.actor.permitsInUse()).isZero();
    assertThat(f.scheduler.pendingTasks()).isZero();
  }

  @Test
  void aFenceAfterShutdownAnswersTheDiagnosticsQueuedOnTheClosedActor() {
    ActorFixture f = new ActorFixture();
    CompletableFuture<Void> down = f.actor.shutdown();
    f.scheduler.runReady();
    assertThat(down).isDone();
    // Stats and CopyWords are still accepted on a closed actor; queue them, then fence before the task runs.
    CompletableFuture<PoolStats.Actor> stats = new CompletableFuture<>();
    accepted(f.actor.submit(new PoolCommand.Stats(stats)));
    CompletableFuture<long[]> words = new CompletableFuture<>();
    accepted(f.actor.submit(new PoolCommand.CopyWords(words)));
    assertThat(f.actor.submit(new PoolCommand.Subscribe(9, new CompletableFuture<>())))
        .isEqualTo(new SubmitResult.Rejected(RejectReason.CLOSED));

    List<Boolean> answeredAtFence = new ArrayList<>();
    CompletableFuture<Void> fenced = f.actor.fence();
    CompletableFuture<Void> unused = fenced.thenRun(() -> answeredAtFence.add(stats.isDone() && words.isDone()));
    f.scheduler.runReady();

    assertThat(answeredAtFence).as("Stats and CopyWords answered when the fence completed").containsExactly(true);
    assertThat(stats.join().state()).as("a fence after shutdown leaves the actor shut down")
        .isEqualTo(ActorState.SHUT_DOWN);
    assertThat(words.join()).isNotNull();
  }

  private static PoolActorException.Reason reason(CompletableFuture<?> failed) {
    try {
      failed.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof PoolActorException p) {
        return p.reason();
      }
      throw new AssertionError("not a PoolActorException", e);
    }
    throw new AssertionError("completed normally");
  }
}
