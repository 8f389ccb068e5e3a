package dev.kvrelay.requestplane.tcp;

import static dev.kvrelay.requestplane.tcp.ClientContext.LOG;

import dev.kvrelay.spi.eventplane.RequestPlaneException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (a concurrent map of pools, each under its own monitor): the request connections of one
 * {@link TcpRequestPlaneClient}, pooled per worker address — up to {@code connectionsPerWorker} pipelined
 * {@link RequestConnection}s each, least-loaded first — opened on demand and forgotten with their last connection.
 */
final class RequestPools {
  private final ClientContext ctx;
  private final Map<String, Pool> pools = new ConcurrentHashMap<>();

  RequestPools(ClientContext ctx) {
    this.ctx = ctx;
  }

  /** Sends {@code p} on a connection to {@code address}, connecting first if needed; failures fail {@code p}. */
  void send(TcpEndpointPaths.Address address, PendingQuery p) {
    // a pool retires when its last connection closes; a sender that raced with that takes a fresh one
    while (!pools.computeIfAbsent(address.hostPort(), k -> new Pool(address)).send(p)) {
      Thread.onSpinWait();
    }
  }

  /** Closes every connection of every pool (the client is closing). */
  void closeAll() {
    pools.values().forEach(Pool::closeAll);
  }

  /** Thread-safe (synchronized): up to {@code connectionsPerWorker} request connections to one worker address. */
  final class Pool {
    final TcpEndpointPaths.Address address;
    private final List<RequestConnection> connections = new ArrayList<>();
    private int connecting;
    private boolean retired;

    Pool(TcpEndpointPaths.Address address) {
      this.address = address;
    }

    /** Sends {@code p} on one of this pool's connections; false if the pool has retired (use a fresh one). */
    boolean send(PendingQuery p) {
      if (p.result.isDone()) {
        return true;
      }
      RequestConnection c;
      try {
        c = pick();
      } catch (IOException e) {
        p.fail(RequestPlaneException.Kind.UNREACHABLE, ClientCounter.CONNECT_FAILURES,
            "cannot connect to " + address.hostPort() + ": " + e, e);
        return true;
      }
      if (c == null) {
        return false;
      }
      c.send(p);
      return true;
    }

    private @Nullable RequestConnection pick() throws IOException {
      synchronized (this) {
        while (true) {
          if (retired) {
            return null;
          }
          RequestConnection best = null;
          for (RequestConnection c : connections) {
            if (best == null || c.outstanding() < best.outstanding()) {
              best = c;
            }
          }
          boolean full = connections.size() + connecting >= ctx.config.connectionsPerWorker();
          if (best != null && (best.outstanding() == 0 || full)) {
            return best;
          }
          if (!full) {
            connecting++; // a reserved slot: concurrent senders never open more than the cap
            break;
          }
          try {
            wait(); // every slot is being connected: use the first one that lands
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a connection", e);
          }
        }
      }
      RequestConnection fresh;
      try {
        fresh = connect();
      } catch (IOException e) {
        synchronized (this) {
          connecting--;
          notifyAll();
          retireIfIdle();
        }
        throw e;
      }
      synchronized (this) {
        connecting--;
        notifyAll();
        if (ctx.closed()) {
          fresh.close("request plane closed");
          throw new IOException("request plane closed");
        }
        connections.add(fresh);
      }
      return fresh;
    }

    /** Connects and starts the connection's ACK reader; every failed attempt is counted. */
    private RequestConnection connect() throws IOException {
      Socket s = new Socket();
      try {
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(address.host(), address.port()), (int) ctx.config.connectTimeout().toMillis());
      } catch (IOException e) {
        ClientContext.closeQuietly(s);
        // counted here, whether or not the query still waits (a finished one counts no CONNECT_FAILURES)
        ctx.counters.add(ClientCounter.CONNECT_ATTEMPTS_FAILED);
        LOG.debug("TCP request plane: connect to {} failed: {}", address.hostPort(), e.toString());
        throw e;
      }
      ctx.counters.add(ClientCounter.CONNECTIONS_OPENED);
      LOG.debug("TCP request plane: connected to {}", address.hostPort());
      RequestConnection c = new RequestConnection(ctx, this, s);
      try {
        ctx.io.execute(ctx.guarded("ACK reader for " + address.hostPort(), c::readAcks));
      } catch (RejectedExecutionException e) {
        // the client closed while connecting: no reader can run, so the connection is not used
        ClientContext.closeQuietly(s);
        throw new IOException("request plane closed", e);
      }
      return c;
    }

    /**
     * Drops a closed connection; the last one (or a failed connect with none open) retires the pool, so no state
     * is kept per worker address ever seen. Lock order: pool, then connection; never the reverse.
     */
    synchronized void remove(RequestConnection c) {
      connections.remove(c);
      retireIfIdle();
    }

    private void retireIfIdle() {
      if (connections.isEmpty() && connecting == 0 && !retired) {
        retired = true;
        pools.remove(address.hostPort(), this);
        notifyAll();
      }
    }

    void closeAll() {
      List<RequestConnection> all;
      synchronized (this) {
        all = new ArrayList<>(connections);
        connections.clear();
      }
      all.forEach(c -> c.close("request plane closed"));
    }
  }
}
