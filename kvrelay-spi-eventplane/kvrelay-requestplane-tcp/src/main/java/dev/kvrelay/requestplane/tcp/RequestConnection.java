package dev.kvrelay.requestplane.tcp;

import static dev.kvrelay.requestplane.tcp.ClientContext.LOG;

import dev.kvrelay.spi.eventplane.RequestPlaneException;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (writes and the ACK queue under one monitor): one pipelined request connection of a
 * {@link RequestPools.Pool}. Requests are written in order and their ACKs paired FIFO by the connection's reader;
 * an overdue ACK ({@code DYN_TCP_REQUEST_TIMEOUT}) retires the connection, since the pairing is then lost.
 */
final class RequestConnection {
  private final ClientContext ctx;
  private final RequestPools.Pool pool;
  private final Socket socket;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
  private boolean dead;

  RequestConnection(ClientContext ctx, RequestPools.Pool pool, Socket socket) {
    this.ctx = ctx;
    this.pool = pool;
    this.socket = socket;
  }

  synchronized int outstanding() {
    return waiters.size();
  }

  void send(PendingQuery p) {
    Waiter w = new Waiter(p);
    IOException writeFailure = null;
    synchronized (this) {
      if (dead) {
        p.fail(RequestPlaneException.Kind.UNREACHABLE, ClientCounter.CONNECTIONS_LOST,
            "connection to " + pool.address.hostPort() + " closed before the request was sent", null);
        return;
      }
      waiters.add(w);
      try {
        OutputStream out = socket.getOutputStream();
        out.write(p.wire);
        out.flush();
      } catch (IOException e) {
        waiters.remove(w);
        writeFailure = e;
      }
    }
    if (writeFailure != null) {
      // outside this connection's monitor: close() takes the pool's (lock order pool → connection)
      p.fail(RequestPlaneException.Kind.UNREACHABLE, ClientCounter.CONNECTIONS_LOST,
          "writing to " + pool.address.hostPort() + " failed: " + writeFailure, writeFailure);
      close("write failed");
      return;
    }
    try {
      w.timer = ctx.timers.schedule(ctx.guarded("ACK timer for " + pool.address.hostPort(), () -> ackTimeout(w)),
          ctx.config.requestTimeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException ignored) {
      // closing: close() fails the query
    }
  }

  private void ackTimeout(Waiter w) {
    synchronized (this) {
      if (w.acked) {
        return;
      }
    }
    if (!w.pending.calledHome()) {
      w.pending.fail(RequestPlaneException.Kind.TIMEOUT, ClientCounter.ACK_TIMEOUTS,
          "no ACK from " + pool.address.hostPort() + " within " + ctx.config.requestTimeout(), null);
    }
    // FIFO pairing is lost once an ACK is overdue: retire the connection.
    close("ACK timeout");
  }

  /** The connection's reader: pairs ACKs with requests until the connection ends. */
  void readAcks() {
    try {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      while (true) {
        String ack = AckFrame.read(in, ctx.config.maxMessageBytes());
        Waiter w;
        synchronized (this) {
          w = waiters.poll();
          if (w != null) {
            w.acked = true;
          }
        }
        if (w == null) {
          throw new TcpWireException(TcpWireException.Reason.MALFORMED, "an ACK with no request outstanding");
        }
        ScheduledFuture<?> t = w.timer;
        if (t != null) {
          t.cancel(false);
        }
        onAck(w.pending, ack);
      }
    } catch (EOFException e) {
      close("closed by the worker");
    } catch (IOException e) {
      readerFailed(e.toString(), true);
    } catch (TcpWireException e) {
      LOG.warn("TCP request plane: bad ACK stream from {}: {}", pool.address.hostPort(), e.getMessage());
      readerFailed(String.valueOf(e.getMessage()), false);
    }
  }

  /**
   * The reader stopped on an error: counted ({@link ClientCounter#READER_FAILURES}) unless this client had closed
   * the connection already (its own close makes the blocked read fail), then the connection is retired.
   */
  private void readerFailed(String why, boolean log) {
    boolean closedHere;
    synchronized (this) {
      closedHere = dead;
    }
    if (!closedHere) {
      ctx.counters.add(ClientCounter.READER_FAILURES);
      if (log) {
        LOG.warn("TCP request plane: reading ACKs from {} failed: {}", pool.address.hostPort(), why);
      }
    }
    close(why);
  }

  private void onAck(PendingQuery p, String ack) {
    if (p.result.isDone()) {
      ctx.counters.add(ClientCounter.LATE_ACKS);
      return;
    }
    if (ack.isEmpty()) {
      ctx.counters.add(ClientCounter.ACKS_ACCEPTED);
    } else if (ack.startsWith(AckFrame.OVERLOADED_PREFIX)) {
      p.fail(RequestPlaneException.Kind.REJECTED, ClientCounter.REJECTED_OVERLOADED, ack, null);
    } else if (ack.startsWith(AckFrame.UNAVAILABLE_PREFIX)) {
      p.fail(RequestPlaneException.Kind.REJECTED, ClientCounter.REJECTED_UNAVAILABLE, ack, null);
    } else {
      p.fail(RequestPlaneException.Kind.PROTOCOL, ClientCounter.REJECTED_OTHER_ACK,
          "worker replied with a non-empty ACK: " + ack, null);
    }
  }

  /** Closes once: leaves the pool, closes the socket, fails every query still waiting for its ACK. */
  void close(String why) {
    List<Waiter> orphans;
    synchronized (this) {
      if (dead) {
        return;
      }
      dead = true;
      orphans = new ArrayList<>(waiters);
      waiters.clear();
    }
    pool.remove(this);
    ClientContext.closeQuietly(socket);
    LOG.debug("TCP request plane: connection to {} closed ({}), {} ACKs outstanding", pool.address.hostPort(), why,
        orphans.size());
    boolean closing = ctx.closed();
    for (Waiter w : orphans) {
      ScheduledFuture<?> t = w.timer;
      if (t != null) {
        t.cancel(false);
      }
      if (!w.pending.calledHome()) {
        w.pending.fail(closing ? RequestPlaneException.Kind.CLOSED : RequestPlaneException.Kind.UNREACHABLE,
            closing ? ClientCounter.CLOSED : ClientCounter.CONNECTIONS_LOST,
            "connection to " + pool.address.hostPort() + " lost before the ACK (" + why + ")", null);
      }
    }
  }

  /** Not thread-safe: confined to its {@link RequestConnection}'s monitor: one ACK awaited. */
  private static final class Waiter {
    final PendingQuery pending;
    boolean acked;
    volatile @Nullable ScheduledFuture<?> timer;

    Waiter(PendingQuery pending) {
      this.pending = pending;
    }
  }
}
