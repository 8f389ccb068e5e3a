package dev.kvrelay.grpc.server;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.grpc.wire.RelayStatus;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

// Not on the engine's SerialTask (dev.kvrelay.engine.actor, issue 9 item 3) on purpose: that package is the engine's
// inside and its module-info does not export it to dev.kvrelay.grpc (only dev.kvrelay.engine.wire is), and the pump
// runs on a plain Executor, not an ActorScheduler. Its work-in-progress counter is the same "schedule once, then
// drain" hand-off and has its own jcstress test (StreamPumpStress); exporting the actor package to share it would
// widen the engine's module API for one class.
/**
 * Thread-safe: moves one engine {@link RelayStream} to one server-streaming call under gRPC flow control. Every
 * signal (stream available, transport ready, cancel, attach, failure) only schedules a drain; drains run one at a
 * time on the shared executor (a work-in-progress counter makes them serial per call), never on a gRPC or engine
 * thread and never blocking. A drain polls only while {@code isReady()}, so nothing is buffered beyond the
 * transport's own window: a stalled client leaves messages in the engine's bounded queues, which end the stream
 * with a typed error (SUBSCRIBER_LAGGED, SNAPSHOT_PROGRESS_TIMEOUT) delivered once the client reads again.
 *
 * @param <T> the engine message type
 * @param <M> the protobuf message type
 */
final class StreamPump<T, M> {
  /** Messages sent per drain before yielding the executor thread to other calls. */
  static final int BATCH = 64;

  private final ServerCallStreamObserver<M> out;
  private final Function<T, M> mapper;
  private final Executor executor;
  private final AtomicInteger wip = new AtomicInteger();
  private volatile @Nullable RelayStream<T> stream;
  private volatile @Nullable StatusRuntimeException failure;
  private volatile boolean cancelled;
  /** Confined to the drain (serial). */
  private boolean done;

  /** Registers the call's cancel and ready handlers; call from the RPC method, before it returns. */
  StreamPump(ServerCallStreamObserver<M> out, Function<T, M> mapper, Executor executor) {
    this.out = out;
    this.mapper = mapper;
    this.executor = executor;
    out.setOnCancelHandler(() -> {
      cancelled = true;
      schedule();
    });
    out.setOnReadyHandler(this::schedule);
  }

  /** Starts pumping {@code s} (at most once); a stream attached after the call ended is closed at once. */
  void attach(RelayStream<T> s) {
    stream = s;
    s.onAvailable(this::schedule);
    schedule();
  }

  /** Ends the call with {@code status} (when no stream could be opened). */
  void fail(StatusRuntimeException status) {
    failure = status;
    schedule();
  }

  private void schedule() {
    if (wip.getAndIncrement() == 0) {
      submit();
    }
  }

  private void submit() {
    try {
      executor.execute(this::run);
    } catch (RejectedExecutionException e) {
      // the server is stopping: give the engine its permits back; the transport ends the call
      RelayStream<T> s = stream;
      if (s != null) {
        s.close();
      }
    }
  }

  private void run() {
    int missed = 1;
    while (true) {
      if (drain()) {
        submit(); // more is ready: yield, wip stays positive so only this resubmission runs
        return;
      }
      missed = wip.addAndGet(-missed);
      if (missed == 0) {
        return;
      }
    }
  }

  /** One drain; true if it stopped after a full batch with the transport still ready. */
  private boolean drain() {
    RelayStream<T> s = stream;
    if (done) {
      if (s != null) {
        s.close(); // idempotent: also catches a stream attached after the end
      }
      return false;
    }
    if (cancelled) {
      done = true;
      if (s != null) {
        s.close();
      }
      return false;
    }
    StatusRuntimeException f = failure;
    if (f != null) {
      done = true;
      out.onError(f);
      return false;
    }
    if (s == null) {
      return false;
    }
    int sent = 0;
    try {
      while (out.isReady()) {
        if (sent == BATCH) {
          return true;
        }
        T item = s.poll();
        if (item == null) {
          if (s.isFinished()) {
            done = true;
            s.close();
            out.onCompleted();
          }
          return false;
        }
        out.onNext(mapper.apply(item));
        sent++;
      }
    } catch (RelayException e) {
      done = true;
      s.close();
      out.onError(RelayStatus.toStatus(e));
    } catch (RuntimeException e) {
      done = true;
      s.close();
      if (!cancelled) {
        try {
          out.onError(RelayStatus.toStatus(new RelayException(RelayErrorReason.INTERNAL,
              "relay stream failed: " + e)));
        } catch (RuntimeException ignored) {
          // the call is already closed
        }
      }
    }
    return false;
  }

  /** The status a failed engine future ends a call with. */
  static StatusRuntimeException statusOf(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof java.util.concurrent.CompletionException
        || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof RelayException re) {
      return RelayStatus.toStatus(re);
    }
    if (cause instanceof java.util.concurrent.CancellationException) {
      return RelayStatus.toStatus(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "subscription cancelled"));
    }
    return RelayStatus.toStatus(new RelayException(RelayErrorReason.INTERNAL, "subscription failed: " + cause));
  }
}
