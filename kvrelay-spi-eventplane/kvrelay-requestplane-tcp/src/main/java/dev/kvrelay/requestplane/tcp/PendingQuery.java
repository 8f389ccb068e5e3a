package dev.kvrelay.requestplane.tcp;

import static dev.kvrelay.requestplane.tcp.ClientContext.LOG;

import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.RequestPlaneException;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.io.IOException;
import java.net.Socket;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (the attached stream under its own monitor, the outcome claimed once atomically): one query of a
 * {@link TcpRequestPlaneClient} in flight, correlated by its request id and call-home subject. Its first outcome —
 * answer, failure or the caller's cancel — wins; a failure is counted under exactly one counter, logged once,
 * and kills an attached response stream.
 */
final class PendingQuery {
  final String id;
  final String subject = UUID.randomUUID().toString();
  final RecoveryTarget target;
  final CompletableFuture<WorkerKvQueryResponse> result;
  /** The encoded request frame; set before the query is registered or sent. */
  byte[] wire = new byte[0];
  volatile @Nullable ScheduledFuture<?> timer;
  private final ClientContext ctx;
  private final AtomicBoolean finished = new AtomicBoolean();
  private @Nullable Socket stream;
  private boolean calledHome;

  PendingQuery(ClientContext ctx, String id, RecoveryTarget target, CompletableFuture<WorkerKvQueryResponse> result) {
    this.ctx = ctx;
    this.id = id;
    this.target = target;
    this.result = result;
  }

  /** Attaches the call-home socket; false if the query is over or already attached. */
  synchronized boolean attach(Socket s) {
    if (result.isDone() || calledHome) {
      return false;
    }
    calledHome = true;
    stream = s;
    return true;
  }

  synchronized boolean calledHome() {
    return calledHome;
  }

  /** True once, for the first outcome (answer, failure or the caller's cancel). */
  boolean finish() {
    return !result.isDone() && finished.compareAndSet(false, true);
  }

  /** Claims the outcome for the caller's cancel (the future is already cancelled); true once. */
  boolean claimCancel() {
    return finished.compareAndSet(false, true);
  }

  void succeed(WorkerKvQueryResponse r) {
    if (finish()) {
      ctx.counters.add(ClientCounter.ANSWERS); // counted before completion: a caller sees the count with the answer
      cancelTimer();
      result.complete(r);
    }
  }

  /** Fails the query once: counts, logs, kills an attached stream. */
  void fail(RequestPlaneException.Kind kind, ClientCounter counter, String message, @Nullable Throwable cause) {
    RequestPlaneException e = cause == null ? new RequestPlaneException(kind, message)
        : new RequestPlaneException(kind, message, cause);
    if (!finish()) {
      return;
    }
    ctx.counters.add(counter);
    cancelTimer();
    LOG.warn("TCP request plane: query {} ({}) to {} failed, {} / {}: {}", id, subject, target, kind, counter, message);
    result.completeExceptionally(e);
    Socket s;
    synchronized (this) {
      s = stream;
    }
    if (s != null) {
      ctx.sendControl(s, ControlJson.Control.KILL);
      ClientContext.closeQuietly(s);
    }
  }

  /** After the caller's cancel: sends {@code stop} and FIN on an attached stream. */
  void cancelStream() {
    cancelTimer();
    Socket s;
    synchronized (this) {
      s = stream;
    }
    if (s != null) {
      ctx.sendControl(s, ControlJson.Control.STOP);
      try {
        s.shutdownOutput();
      } catch (IOException ignored) {
        // the reader sees the end
      }
    }
  }

  private void cancelTimer() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
  }
}
