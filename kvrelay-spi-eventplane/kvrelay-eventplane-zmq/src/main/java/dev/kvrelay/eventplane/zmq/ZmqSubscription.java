package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventSubscription;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Thread-safe: one subscription of a {@link ZmqEventPlane}. It owns one SUB socket and one receive thread; the
 * socket, the connected-channel table and the {@link ZmqDelivery} (checks, sequences, listener calls) are confined
 * to that thread, and
 * {@link #connect}/{@link #disconnect}/{@link #close} hand it commands through a queue and wait for them (the
 * thread blocks in {@code recv} for at most {@link #RECV_TIMEOUT_MS} between looks at the queue, as upstream's
 * 100 ms receive timeout). The listener is called on the receive thread, in arrival order.
 *
 * <p>Direct mode: the socket connects to every {@link ChannelLocator.Zmq} endpoint given (one SUB connected to
 * many; an endpoint shared by several publisher ids is connected once), and a message's frame-1 publisher must be
 * one of the connected channels' ids. Broker mode: it connects to the brokers' XPUB endpoints and accepts any
 * publisher. Either way a {@link ZmqLinkMonitor} on the receive thread turns a connected endpoint's loss and
 * return into {@code Disconnected} / {@code Reconnected} faults.
 */
final class ZmqSubscription implements EventSubscription {
  private static final Logger LOG = LoggerFactory.getLogger(ZmqSubscription.class);
  private static final AtomicInteger THREAD_IDS = new AtomicInteger();
  /** RCVHWM (runtime-inputs §5.4). */
  static final int RCVHWM = 100_000;
  /** Reconnect interval, initial and maximum (runtime-inputs §5.4). */
  static final int RECONNECT_IVL_MS = 100;
  static final int RECONNECT_IVL_MAX_MS = 5_000;
  /**
   * ZMTP handshake deadline: a connection whose handshake has not finished by then is dropped and reconnected (with
   * the reconnect backoff). Shorter than libzmq's 30 s because jeromq 0.6.0 occasionally leaves a fresh connection's
   * handshake unread (seen here in about 1 of 20 connects on a loaded machine: the peer's greeting sits in the
   * socket's receive queue); the deadline turns that stall into a reconnect.
   */
  static final int HANDSHAKE_IVL_MS = 2_000;
  /** The longest a command waits for the receive thread. */
  static final int RECV_TIMEOUT_MS = 50;
  /** Messages read in a row before commands are looked at again. */
  private static final int BATCH = 4_096;
  /** Frames kept of one message: enough to see that it is not four. */
  private static final int MAX_FRAMES_KEPT = 5;
  private static final long COMMAND_TIMEOUT_SECONDS = 10;
  /** The longest {@link #close} (and the plane's close) waits for the receive thread to end. */
  static final long STOP_WAIT_MS = 10_000;

  private final ZmqEventPlane plane;
  private final ZContext context;
  private final ZmqCounters counters;
  private final EventScope scope;
  private final String topic;
  private final String frame0;
  private final ZmqSettings.Mode mode;
  private final List<String> staticEndpoints;
  private final Thread thread;
  private final ConcurrentLinkedQueue<Command> commands = new ConcurrentLinkedQueue<>();
  private final CompletableFuture<Void> started = new CompletableFuture<>();
  private volatile boolean closed;
  /** Set once this subscription's receive thread has been counted in {@code stuckReceivers}. */
  private final AtomicBoolean countedStuck = new AtomicBoolean();

  // ---- confined to the receive thread
  private final Map<String, Set<Long>> endpointPublishers = new HashMap<>();
  private final Set<Long> expected = new HashSet<>();
  private final Map<String, Integer> brokerRefs = new HashMap<>();
  private final ZmqDelivery delivery;
  private ZMQ.@Nullable Socket socket;
  private @Nullable ZmqLinkMonitor links;

  /** Immutable: a socket operation run on the receive thread, its outcome completing {@code done}. */
  private record Command(SocketTask task, CompletableFuture<Void> done) {}

  /** Not thread-safe: confined to the receive thread. A socket operation that may refuse its argument. */
  @FunctionalInterface
  private interface SocketTask {
    void run() throws EventPlaneException;
  }

  ZmqSubscription(ZmqEventPlane plane, ZContext context, ZmqCounters counters, ZmqSettings settings,
      EventScope scope, String topic, EventListener listener) {
    this.plane = plane;
    this.context = context;
    this.counters = counters;
    this.scope = scope;
    this.topic = topic;
    this.mode = settings.mode();
    this.frame0 = settings.brokered() ? scope.subject(topic) : topic;
    this.staticEndpoints = mode == ZmqSettings.Mode.BROKER_URL ? settings.xpubEndpoints() : List.of();
    this.delivery = new ZmqDelivery(counters, listener, frame0, topic,
        mode == ZmqSettings.Mode.DIRECT ? expected::contains : id -> true,
        settings.brokered() && settings.xpubEndpoints().size() != 1);
    this.thread = new Thread(this::run, "kvrelay-zmq-sub-" + THREAD_IDS.incrementAndGet());
    this.thread.setDaemon(true);
  }

  /** Starts the receive thread and waits until the socket is set up. */
  void start() throws EventPlaneException {
    thread.start();
    await(started, "set up the SUB socket");
  }

  @Override
  public EventScope scope() {
    return scope;
  }

  @Override
  public String topic() {
    return topic;
  }

  /** The frame-0 bytes and SUB filter: the plain topic (direct) or the full subject (broker). */
  String frame0() {
    return frame0;
  }

  @Override
  public void connect(ChannelLocator channel) throws EventPlaneException {
    Objects.requireNonNull(channel, "channel");
    if (closed) {
      throw new EventPlaneException(EventPlaneException.Kind.CLOSED, "ZMQ subscription to " + frame0 + " is closed");
    }
    if (mode == ZmqSettings.Mode.BROKER_URL) {
      return; // every publisher arrives through the configured brokers; channels are ignored
    }
    if (mode == ZmqSettings.Mode.DIRECT && channel instanceof ChannelLocator.Zmq z) {
      String why = ZmqEndpoints.problem(z.endpoint());
      if (why != null) {
        throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT,
            "ZMQ channel endpoint '" + z.endpoint() + "' " + why);
      }
      run(() -> connectPublisher(z));
    } else if (mode == ZmqSettings.Mode.BROKER_DISCOVERED && channel instanceof ChannelLocator.ZmqBroker b) {
      if (b.xpubEndpoints().isEmpty()) {
        throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT, "ZMQ broker channel has no xpub endpoint");
      }
      for (String e : b.xpubEndpoints()) {
        String why = ZmqEndpoints.problem(e);
        if (why != null) {
          throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT,
              "ZMQ broker xpub endpoint '" + e + "' " + why);
        }
      }
      run(() -> connectBroker(b));
    } else {
      throw new EventPlaneException(EventPlaneException.Kind.UNSUPPORTED_CHANNEL,
          "the ZMQ plane in " + mode + " mode cannot use " + channel);
    }
  }

  @Override
  public void disconnect(ChannelLocator channel) {
    if (closed || mode == ZmqSettings.Mode.BROKER_URL) {
      return;
    }
    try {
      if (channel instanceof ChannelLocator.Zmq z && mode == ZmqSettings.Mode.DIRECT) {
        run(() -> disconnectPublisher(z));
      } else if (channel instanceof ChannelLocator.ZmqBroker b && mode == ZmqSettings.Mode.BROKER_DISCOVERED) {
        run(() -> disconnectBroker(b));
      }
    } catch (EventPlaneException e) {
      LOG.warn("ZMQ subscription {}: disconnect of {} failed: {}", frame0, channel, e.getMessage());
    }
  }

  /**
   * Closes the subscription. From any thread but the receive thread it waits up to {@link #STOP_WAIT_MS} for the
   * receive thread to end (an interrupt does not cut the wait short; it is kept for the caller); a thread still
   * running then is logged and counted ({@code stuckReceivers}). From the receive thread (a listener closing its
   * own subscription) it returns at once and the thread ends after the listener returns; the plane's
   * {@link ZmqEventPlane#close} still waits for it.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    plane.forget(this);
    if (Thread.currentThread() != thread) {
      awaitStopped();
    }
  }

  /**
   * Waits up to {@link #STOP_WAIT_MS} for the receive thread to end (never started counts as ended); true if it
   * has. A thread still running is logged each time, and counted once (a subscription's close and then the
   * plane's may both wait for it).
   */
  boolean awaitStopped() {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MS);
    boolean interrupted = false;
    try {
      while (thread.isAlive()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          if (countedStuck.compareAndSet(false, true)) {
            counters.stuckReceivers.increment();
          }
          LOG.error("ZMQ subscription {}: receive thread {} did not end within {} ms of close; at {}", frame0,
              thread.getName(), STOP_WAIT_MS, where(thread));
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedJoin(thread, left);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      return true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The top frames of {@code t}'s stack, for the stuck-thread log line. */
  private static String where(Thread t) {
    StackTraceElement[] st = t.getStackTrace();
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(st.length, 8); i++) {
      b.append(i == 0 ? "" : " <- ").append(st[i]);
    }
    return b.length() == 0 ? "(no frames)" : b.toString();
  }

  // ------------------------------------------------------------------ commands (any thread)

  private void run(SocketTask task) throws EventPlaneException {
    if (Thread.currentThread() == thread) {
      task.run(); // from the listener: already on the socket's thread
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    commands.add(new Command(task, done));
    if (closed) {
      done.completeExceptionally(new EventPlaneException(EventPlaneException.Kind.CLOSED, "subscription is closed"));
    }
    await(done, "run a socket command");
  }

  private void await(CompletableFuture<Void> f, String what) throws EventPlaneException {
    try {
      f.get(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof EventPlaneException x) {
        throw x;
      }
      throw new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE,
          "ZMQ subscription " + frame0 + " could not " + what + ": " + cause, cause);
    } catch (TimeoutException e) {
      throw new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE,
          "ZMQ subscription " + frame0 + " did not " + what + " within " + COMMAND_TIMEOUT_SECONDS + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE, "interrupted", e);
    }
  }

  // ------------------------------------------------------------------ the receive thread

  /** The receive thread's body; however it ends, the plane learns that this thread has. */
  private void run() {
    try {
      receive();
    } finally {
      plane.stopped(this);
    }
  }

  private void receive() {
    ZMQ.Socket sub;
    try {
      sub = context.createSocket(SocketType.SUB);
      sub.setLinger(0);
      sub.setRcvHWM(RCVHWM);
      sub.setReconnectIVL(RECONNECT_IVL_MS);
      sub.setReconnectIVLMax(RECONNECT_IVL_MAX_MS);
      sub.setTCPKeepAlive(1);
      sub.setReceiveTimeOut(RECV_TIMEOUT_MS);
      sub.setHandshakeIvl(HANDSHAKE_IVL_MS);
      sub.subscribe(frame0.getBytes(StandardCharsets.UTF_8));
      links = new ZmqLinkMonitor(context, sub, counters, frame0);
      for (String e : staticEndpoints) {
        sub.connect(e);
        links.track(e);
      }
    } catch (RuntimeException e) {
      LOG.error("ZMQ subscription {}: socket setup failed", frame0, e);
      started.completeExceptionally(e);
      return;
    }
    socket = sub;
    started.complete(null);
    LOG.info("ZMQ subscription {} ({} mode) started{}", frame0, mode,
        staticEndpoints.isEmpty() ? "" : ", connected to " + staticEndpoints);
    try {
      ZmqLinkMonitor monitor = links();
      while (!closed) {
        runCommands();
        monitor.poll(delivery::reportFault);
        if (!receiveOne(sub, 0)) {
          continue; // the receive timeout passed: look at the commands again
        }
        for (int i = 0; i < BATCH && !closed && receiveOne(sub, ZMQ.DONTWAIT); i++) {
          // one message handled per iteration
        }
      }
    } catch (RuntimeException e) {
      LOG.error("ZMQ subscription {}: receive loop failed; no more messages are delivered", frame0, e);
    } finally {
      Command c;
      while ((c = commands.poll()) != null) {
        c.done.completeExceptionally(new EventPlaneException(EventPlaneException.Kind.CLOSED, "subscription is closed"));
      }
      ZmqLinkMonitor monitor = links;
      if (monitor != null) {
        monitor.close();
      }
      context.destroySocket(sub);
      socket = null;
      LOG.info("ZMQ subscription {} stopped", frame0);
    }
  }

  private void runCommands() {
    Command c;
    while ((c = commands.poll()) != null) {
      try {
        c.task.run();
        c.done.complete(null);
      } catch (EventPlaneException e) {
        c.done.completeExceptionally(e);
      } catch (RuntimeException e) {
        c.done.completeExceptionally(new EventPlaneException(EventPlaneException.Kind.TRANSPORT_FAILURE,
            "ZMQ socket refused the operation: " + e, e));
      }
    }
  }

  private ZMQ.Socket socket() {
    return Objects.requireNonNull(socket, "socket");
  }

  private ZmqLinkMonitor links() {
    return Objects.requireNonNull(links, "links");
  }

  /** Disconnects {@code endpoint} and stops watching its connection. */
  private void disconnectSocket(String endpoint) {
    socket().disconnect(endpoint);
    links().untrack(endpoint);
  }

  private void connectPublisher(ChannelLocator.Zmq z) throws EventPlaneException {
    Set<Long> ids = endpointPublishers.get(z.endpoint());
    if (ids != null && ids.contains(z.publisherId())) {
      return;
    }
    if (ids == null) {
      connectSocket(z.endpoint());
      ids = new HashSet<>();
      endpointPublishers.put(z.endpoint(), ids);
    }
    ids.add(z.publisherId());
    expected.add(z.publisherId());
    LOG.info("ZMQ subscription {}: connected publisher {} at {}", frame0, Long.toUnsignedString(z.publisherId()),
        z.endpoint());
  }

  private void disconnectPublisher(ChannelLocator.Zmq z) {
    Set<Long> ids = endpointPublishers.get(z.endpoint());
    if (ids == null || !ids.remove(z.publisherId())) {
      return;
    }
    if (ids.isEmpty()) {
      endpointPublishers.remove(z.endpoint());
      disconnectSocket(z.endpoint());
    }
    boolean stillAdvertised = endpointPublishers.values().stream().anyMatch(s -> s.contains(z.publisherId()));
    if (!stillAdvertised) {
      expected.remove(z.publisherId());
      delivery.forget(z.publisherId());
    }
    LOG.info("ZMQ subscription {}: disconnected publisher {} at {}", frame0, Long.toUnsignedString(z.publisherId()),
        z.endpoint());
  }

  private void connectBroker(ChannelLocator.ZmqBroker b) throws EventPlaneException {
    for (String e : b.xpubEndpoints()) {
      int refs = brokerRefs.getOrDefault(e, 0);
      if (refs == 0) {
        connectSocket(e);
        LOG.info("ZMQ subscription {}: connected broker XPUB {}", frame0, e);
      }
      brokerRefs.put(e, refs + 1);
    }
  }

  private void disconnectBroker(ChannelLocator.ZmqBroker b) {
    for (String e : b.xpubEndpoints()) {
      Integer refs = brokerRefs.get(e);
      if (refs == null) {
        continue;
      }
      if (refs == 1) {
        brokerRefs.remove(e);
        disconnectSocket(e);
        LOG.info("ZMQ subscription {}: disconnected broker XPUB {}", frame0, e);
      } else {
        brokerRefs.put(e, refs - 1);
      }
    }
  }

  private void connectSocket(String endpoint) throws EventPlaneException {
    boolean ok;
    try {
      ok = socket().connect(endpoint);
    } catch (RuntimeException e) {
      throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT,
          "ZMQ refused endpoint '" + endpoint + "': " + e, e);
    }
    if (!ok) {
      throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT, "ZMQ refused endpoint '" + endpoint + "'");
    }
    links().track(endpoint);
  }

  /**
   * Reads and handles one message ({@code flags} 0: waiting up to the receive timeout; {@code DONTWAIT}: not
   * waiting); false if none came.
   */
  private boolean receiveOne(ZMQ.Socket sub, int flags) {
    byte[] first = sub.recv(flags);
    if (first == null) {
      return false;
    }
    List<byte[]> frames = new ArrayList<>(4);
    frames.add(first);
    int count = 1;
    while (sub.hasReceiveMore()) {
      byte[] f = sub.recv(0);
      count++;
      if (frames.size() < MAX_FRAMES_KEPT && f != null) {
        frames.add(f);
      }
    }
    if (closed) {
      return false; // read while closing: neither delivered nor dropped, the subscription is gone
    }
    counters.received.increment();
    delivery.handle(frames, count);
    return true;
  }
}
