package dev.kvrelay.requestplane.tcp;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (final fields, an atomic closed flag, atomic counters): what the parts of one
 * {@link TcpRequestPlaneClient} share — its configuration, counters, I/O pool, timer and closed flag — and the
 * guard every background task runs under, so that an exception escaping a task is counted
 * ({@link ClientCounter#BACKGROUND_TASK_FAILURES}) and logged instead of vanishing into an executor's future or a
 * thread's uncaught-exception handler.
 */
final class ClientContext {
  /** Every part logs under the client's name, so the log category an operator configures stays one. */
  static final Logger LOG = LoggerFactory.getLogger(TcpRequestPlaneClient.class);

  final TcpRequestPlaneConfig config;
  final Counters<ClientCounter> counters = new Counters<>(ClientCounter.class);
  final ScheduledExecutorService timers;
  final ExecutorService io;
  private final AtomicBoolean closed = new AtomicBoolean();

  ClientContext(TcpRequestPlaneConfig config) {
    this.config = config;
    this.timers = Executors.newSingleThreadScheduledExecutor(TcpRequestPlaneClient.daemon("kvrelay-tcp-rp-timer"));
    this.io = Executors.newCachedThreadPool(TcpRequestPlaneClient.daemon("kvrelay-tcp-rp-io"));
  }

  boolean closed() {
    return closed.get();
  }

  /** Marks the client closed; true only for the first call. */
  boolean markClosed() {
    return closed.compareAndSet(false, true);
  }

  /**
   * {@code body} under the background guard: an unchecked exception that escapes it is counted under
   * {@link ClientCounter#BACKGROUND_TASK_FAILURES} and logged with its stack trace, naming {@code task}.
   */
  Runnable guarded(String task, Runnable body) {
    return () -> {
      try {
        body.run();
      } catch (RuntimeException e) {
        counters.add(ClientCounter.BACKGROUND_TASK_FAILURES);
        LOG.error("TCP request plane: background task '{}' failed", task, e);
      }
    };
  }

  /** Writes the header-only control {@code c} on a response socket; a gone peer is ignored. */
  void sendControl(Socket s, ControlJson.Control c) {
    try {
      synchronized (s) {
        OutputStream out = s.getOutputStream();
        out.write(TwoPart.headerOnly(c.json()).encode());
        out.flush();
      }
      if (c == ControlJson.Control.KILL) {
        counters.add(ClientCounter.KILLS_SENT);
      }
    } catch (IOException ignored) {
      // the peer is gone: nothing to stop
    }
  }

  static void closeQuietly(@Nullable AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception ignored) {
      // closing anyway
    }
  }
}
