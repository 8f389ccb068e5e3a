package dev.kvrelay.grpc.server;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.kvrelay.engine.wire.RelayStream;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Not thread-safe by itself (each nested class is one jcstress state): the {@link StreamPump}'s work-in-progress
 * counter, its "schedule once, then drain" hand-off between the signals of one call (stream available, transport
 * ready) and the drains on the shared executor.
 */
public final class StreamPumpStress {
  private StreamPumpStress() {}

  /**
   * Thread-safe: an {@link Executor} whose tasks queue until a test thread takes one, so that both jcstress
   * actors can act as threads of the shared (multi-threaded) executor; the counter, not the executor, must keep
   * the drains of one call serial.
   */
  static final class HandOffExecutor implements Executor {
    final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    final AtomicInteger submissions = new AtomicInteger();

    @Override
    public void execute(Runnable task) {
      submissions.incrementAndGet();
      tasks.add(task);
    }

    /** Runs the oldest queued task on the calling thread, if there is one. */
    void runOne() {
      Runnable task = tasks.poll();
      if (task != null) {
        task.run();
      }
    }

    /** Runs queued tasks (and the ones they queue) until none is left. */
    void runAll() {
      Runnable task;
      while ((task = tasks.poll()) != null) {
        task.run();
      }
    }
  }

  /**
   * Thread-safe for producers, one consumer at a time: a relay stream of integers whose availability callback
   * runs on the producing thread, and at once when it is set while something is queued (the
   * {@link RelayStream#onAvailable} contract).
   */
  static final class QueueStream implements RelayStream<Integer> {
    private final ConcurrentLinkedQueue<Integer> items = new ConcurrentLinkedQueue<>();
    private volatile @Nullable Runnable callback;

    void add(int item) {
      items.add(item);
      Runnable c = callback;
      if (c != null) {
        c.run();
      }
    }

    @Override
    public @Nullable Integer poll() {
      return items.poll();
    }

    @Override
    public @Nullable Integer poll(long timeout, TimeUnit unit) {
      return items.poll();
    }

    @Override
    public void onAvailable(Runnable c) {
      callback = c;
      if (!items.isEmpty()) {
        c.run();
      }
    }

    @Override
    public boolean isFinished() {
      return false;
    }

    @Override
    public void close() {}
  }

  /**
   * Thread-safe: the server side of one call. {@link #onNext} records each message and whether another
   * {@code onNext} of the same call was running at that moment (gRPC forbids concurrent calls on one observer).
   */
  static final class RecordingCall extends ServerCallStreamObserver<Integer> {
    final ConcurrentLinkedQueue<Integer> sent = new ConcurrentLinkedQueue<>();
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();
    volatile boolean ready;
    volatile @Nullable Runnable onReady;

    RecordingCall(boolean ready) {
      this.ready = ready;
    }

    /** The transport's window opens: {@code isReady()} turns true, then the ready handler runs. */
    void becomeReady() {
      ready = true;
      Runnable r = onReady;
      if (r != null) {
        r.run();
      }
    }

    /** 1 if the messages arrived once each, in order, as 1..n; 0 otherwise. */
    int inOrder() {
      List<Integer> got = new ArrayList<>(sent);
      for (int i = 0; i < got.size(); i++) {
        if (got.get(i) != i + 1) {
          return 0;
        }
      }
      return 1;
    }

    @Override
    public void onNext(Integer value) {
      if (inside.getAndIncrement() != 0) {
        overlaps.incrementAndGet();
      }
      sent.add(value);
      inside.decrementAndGet();
    }

    @Override
    public void onError(Throwable t) {
      throw new AssertionError("the pump failed the call", t);
    }

    @Override
    public void onCompleted() {
      throw new AssertionError("an unfinished stream completed the call");
    }

    @Override
    public boolean isReady() {
      return ready;
    }

    @Override
    public void setOnReadyHandler(Runnable handler) {
      onReady = handler;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public void setOnCancelHandler(Runnable handler) {}

    @Override
    public void setCompression(String compression) {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public void request(int count) {}

    @Override
    public void setMessageCompression(boolean enable) {}
  }

  /**
   * Not thread-safe (a jcstress state): message 1 is queued and its drain scheduled; one executor thread runs
   * that drain while the engine thread queues message 2 (signalling availability) and then also takes a task
   * from the executor. Both messages reach the call once, in order, from drains that never overlap; the second
   * signal either lands in the running drain (one submission) or schedules one more drain after it (two).
   */
  @JCStressTest
  @Outcome(id = "2, 1, 0, 1", expect = ACCEPTABLE, desc = "the running drain also took message 2")
  @Outcome(id = "2, 1, 0, 2", expect = ACCEPTABLE, desc = "message 2 scheduled a second drain")
  @Outcome(expect = FORBIDDEN, desc = "a message was stranded (lost wake-up), duplicated or reordered, two "
      + "drains overlapped, or a drain was scheduled twice")
  @State
  public static class AvailableWhileDraining {
    final HandOffExecutor executor = new HandOffExecutor();
    final RecordingCall call = new RecordingCall(true);
    final QueueStream stream = new QueueStream();

    {
      stream.add(1);
      new StreamPump<Integer, Integer>(call, Function.identity(), executor).attach(stream);
    }

    @Actor
    public void executorThread() {
      executor.runOne();
    }

    @Actor
    public void engineThenExecutorThread() {
      stream.add(2);
      executor.runOne();
    }

    @Arbiter
    public void quiesce(IIII_Result r) {
      executor.runAll();
      r.r1 = call.sent.size();
      r.r2 = call.inOrder();
      r.r3 = call.overlaps.get();
      r.r4 = executor.submissions.get();
    }
  }

  /**
   * Not thread-safe (a jcstress state): gRPC flow control. Message 1 is queued but the transport is not ready;
   * one executor thread runs the scheduled drain (which must not send) while the transport thread opens the
   * window and runs the ready handler, then takes a task from the executor. The message is sent exactly once:
   * by the running drain if the ready signal landed in it, else by one drain the signal scheduled.
   */
  @JCStressTest
  @Outcome(id = "1, 1, 0, 1", expect = ACCEPTABLE, desc = "the running drain saw the window open")
  @Outcome(id = "1, 1, 0, 2", expect = ACCEPTABLE, desc = "the ready signal scheduled a second drain")
  @Outcome(expect = FORBIDDEN, desc = "the message was stranded although the transport is ready (lost "
      + "wake-up), sent twice, drains overlapped, or a drain was scheduled twice")
  @State
  public static class ReadyWhileDraining {
    final HandOffExecutor executor = new HandOffExecutor();
    final RecordingCall call = new RecordingCall(false);
    final QueueStream stream = new QueueStream();

    {
      stream.add(1);
      new StreamPump<Integer, Integer>(call, Function.identity(), executor).attach(stream);
    }

    @Actor
    public void executorThread() {
      executor.runOne();
    }

    @Actor
    public void transportThenExecutorThread() {
      call.becomeReady();
      executor.runOne();
    }

    @Arbiter
    public void quiesce(IIII_Result r) {
      executor.runAll();
      r.r1 = call.sent.size();
      r.r2 = call.inOrder();
      r.r3 = call.overlaps.get();
      r.r4 = executor.submissions.get();
    }
  }
}
