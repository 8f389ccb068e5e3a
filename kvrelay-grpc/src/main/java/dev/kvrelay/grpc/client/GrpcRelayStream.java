package dev.kvrelay.grpc.client;

import com.google.common.util.concurrent.MoreExecutors;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.grpc.wire.RelayStatus;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe for one consuming thread at a time plus gRPC's serialized call-listener thread; the queue, the
 * outstanding-request count and the termination are guarded by one monitor: one server-streaming call read as a
 * {@link RelayStream} with manual inbound flow control.
 *
 * <p>The call is started with {@code request(bound)}; afterwards a message is requested only when the consumer
 * takes one, so queued plus requested-but-unreceived messages never exceed {@code bound} and a consumer that does
 * not poll stops the server at its {@code isReady} (wan-grpc.md §2.3 backpressure). The call runs its listener
 * directly on the transport thread (a direct call executor): each message is parsed and decoded there, queued, and
 * the consumer woken, with no hand-off to a second executor thread per message (on a 2-core host that hop was one
 * extra wake-up per frame on the WAN path). Decoding is bounded work (one copy of the payload: at most ≈ 4 MiB for a
 * full snapshot chunk, under a millisecond) and {@link RelayStream#onAvailable} callbacks must return quickly, so
 * the transport thread is not held. A decoder refusal cancels the call and ends the stream with the decoder's
 * error after the messages queued before it. The call's close status and trailers become a {@link RelayException} via
 * {@link RelayStatus#fromStatus}; status OK is a clean end.
 *
 * @param <P> the protobuf message
 * @param <T> the delivered value
 */
final class GrpcRelayStream<P, T> implements RelayStream<T> {
  private final ClientCall<?, P> call;
  private final MessageDecoder<P, T> decoder;
  private final ClientCounters counters;
  private final int bound;
  private final CompletableFuture<RelayStream<T>> firstArrival = new CompletableFuture<>();

  private final Object lock = new Object();
  // ---- guarded by lock
  private final ArrayDeque<T> queue;
  private int outstanding;
  private boolean ended;
  private boolean closed;
  private boolean delivered;
  private @Nullable RelayException error;
  private int highWater;

  private volatile @Nullable Runnable callback;

  private GrpcRelayStream(ClientCall<?, P> call, MessageDecoder<P, T> decoder, int bound, ClientCounters counters) {
    this.call = call;
    this.decoder = decoder;
    this.bound = bound;
    this.counters = counters;
    this.queue = new ArrayDeque<>(bound);
  }

  /** Starts {@code method} with {@code request} and returns its stream. */
  static <Q, P, T> GrpcRelayStream<P, T> open(Channel channel, MethodDescriptor<Q, P> method, CallOptions options,
      Q request, MessageDecoder<P, T> decoder, int bound, ClientCounters counters) {
    ClientCall<Q, P> call = channel.newCall(method, options.withExecutor(MoreExecutors.directExecutor()));
    GrpcRelayStream<P, T> stream = new GrpcRelayStream<>(call, decoder, bound, counters);
    counters.streamsOpened.incrementAndGet();
    call.start(stream.new Listener(), new Metadata());
    call.sendMessage(request);
    call.halfClose();
    stream.grant();
    return stream;
  }

  /**
   * Completes with this stream when the first message or the clean end arrives, or exceptionally with the
   * {@link RelayException} the call ended with before any message (trailers-only errors).
   */
  CompletableFuture<RelayStream<T>> firstArrival() {
    return firstArrival;
  }

  /** The most messages ever held unconsumed in the local queue (at most the bound). */
  int queueHighWater() {
    synchronized (lock) {
      return highWater;
    }
  }

  @Override
  public @Nullable T poll() throws RelayException {
    T value;
    synchronized (lock) {
      value = takeLocked();
    }
    if (value != null) {
      grant();
    }
    return value;
  }

  @Override
  public @Nullable T poll(long timeout, TimeUnit unit) throws RelayException, InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    T value;
    synchronized (lock) {
      for (;;) {
        if (!queue.isEmpty() || ended) {
          value = takeLocked();
          break;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
    }
    if (value != null) {
      grant();
    }
    return value;
  }

  private @Nullable T takeLocked() throws RelayException {
    T value = queue.poll();
    if (value == null && error != null && !closed) {
      throw error;
    }
    return value;
  }

  @Override
  public void onAvailable(Runnable callback) {
    this.callback = callback;
    boolean available;
    synchronized (lock) {
      available = !queue.isEmpty() || ended;
    }
    if (available) {
      runCallback(callback);
    }
  }

  @Override
  public boolean isFinished() {
    synchronized (lock) {
      return ended && queue.isEmpty();
    }
  }

  @Override
  public void close() {
    boolean cancel;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      cancel = !ended;
      ended = true;
      queue.clear();
      lock.notifyAll();
    }
    if (cancel) {
      call.cancel("closed by the consumer", null);
    }
    firstArrival.completeExceptionally(
        new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "stream closed by the consumer"));
  }

  /** Requests as many messages as there is room for (outside the monitor: gRPC may call back). */
  private void grant() {
    int credits;
    synchronized (lock) {
      if (ended) {
        return;
      }
      credits = bound - queue.size() - outstanding;
      if (credits <= 0) {
        return;
      }
      outstanding += credits;
    }
    call.request(credits);
  }

  private void signal() {
    Runnable cb = callback;
    if (cb != null) {
      runCallback(cb);
    }
  }

  private void runCallback(Runnable cb) {
    try {
      cb.run();
    } catch (RuntimeException e) {
      counters.callbackFailures.incrementAndGet();
    }
  }

  /** Not thread-safe: confined to gRPC's serialized listener executor of the call; the call's events. */
  private final class Listener extends ClientCall.Listener<P> {
    @Override
    public void onMessage(P message) {
      T value;
      try {
        value = decoder.decode(message);
      } catch (RelayException e) {
        refuse(e);
        return;
      } catch (RuntimeException e) {
        refuse(new RelayException(RelayErrorReason.INVALID_PUBLICATION, "unreadable message: " + e));
        return;
      }
      boolean first;
      synchronized (lock) {
        outstanding--;
        if (ended) {
          return;
        }
        queue.add(value);
        highWater = Math.max(highWater, queue.size());
        first = !delivered;
        delivered = true;
        lock.notifyAll();
      }
      if (first) {
        firstArrival.complete(GrpcRelayStream.this);
      }
      signal();
    }

    /** A message could not be decoded: the stream ends with {@code refused} and the call is cancelled. */
    private void refuse(RelayException refused) {
      counters.rejectedMessages.incrementAndGet(); // counted before anyone can observe the failure
      boolean first;
      synchronized (lock) {
        outstanding--;
        if (ended) {
          return;
        }
        ended = true;
        error = refused;
        first = !delivered;
        lock.notifyAll();
      }
      call.cancel("message refused by the client: " + refused.getMessage(), null);
      if (first) {
        firstArrival.completeExceptionally(refused);
      }
      signal();
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      RelayException failure;
      boolean anyDelivered;
      synchronized (lock) {
        if (ended) {
          return;
        }
        ended = true;
        failure = status.isOk() ? null : RelayStatus.fromStatus(status, trailers);
        error = failure;
        anyDelivered = delivered;
        lock.notifyAll();
      }
      if (failure != null && !anyDelivered) {
        firstArrival.completeExceptionally(failure);
      } else {
        firstArrival.complete(GrpcRelayStream.this);
      }
      signal();
    }
  }
}
