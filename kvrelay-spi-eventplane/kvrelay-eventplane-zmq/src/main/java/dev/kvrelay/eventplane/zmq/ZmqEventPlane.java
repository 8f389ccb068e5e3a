package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventSubscription;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;

/**
 * Thread-safe: the ZMQ event plane (runtime-inputs §5.1–§5.4) over one jeromq context with
 * {@code DYN_ZMQ_IO_THREADS} I/O threads. Each {@link #subscribe subscription} has its own SUB socket
 * (RCVHWM 100 000, reconnect 100 ms growing to 5 s, TCP keepalive, linger 0) and its own receive thread, which
 * checks every message with the SPI's {@code ZmqFrames.check}, tracks each publisher's sequence and calls the
 * listener. Dropped messages change no state: they are counted ({@link #stats()}), logged and reported to
 * {@code onDecodeError}.
 *
 * <p>Direct mode ({@link #connectsToChannels()} true): a subscription receives a publisher once it is given the
 * publisher's {@code Zmq} channel. Broker mode from {@code DYN_ZMQ_BROKER_URL} ({@link #connectsToChannels()}
 * false): every subscription connects to the configured XPUB endpoints and filters on the full subject. Broker
 * mode from {@code DYN_ZMQ_BROKER_ENABLED} ({@link #connectsToChannels()} true): a subscription connects to the
 * XPUB endpoints of the {@code ZmqBroker} channels it is given.
 */
public final class ZmqEventPlane implements EventPlane {
  private static final Logger LOG = LoggerFactory.getLogger(ZmqEventPlane.class);

  private final ZmqSettings settings;
  private final ZContext context;
  private final ZmqCounters counters = new ZmqCounters();
  private final CopyOnWriteArrayList<ZmqSubscription> subscriptions = new CopyOnWriteArrayList<>();
  /** Subscriptions whose receive thread has not ended yet, closed ones included. */
  private final Set<ZmqSubscription> running = ConcurrentHashMap.newKeySet();
  private final Object lifecycle = new Object();
  private volatile boolean closed;

  private ZmqEventPlane(ZmqSettings settings) {
    this.settings = settings;
    this.context = new ZContext(settings.ioThreads());
    this.context.setLinger(0);
  }

  /** Opens a plane with {@code settings}. */
  public static ZmqEventPlane open(ZmqSettings settings) {
    ZmqEventPlane p = new ZmqEventPlane(Objects.requireNonNull(settings, "settings"));
    LOG.info("ZMQ event plane open: {} mode, {} I/O threads{}", settings.mode(), settings.ioThreads(),
        settings.mode() == ZmqSettings.Mode.BROKER_URL ? ", brokers (xpub) " + settings.xpubEndpoints() : "");
    return p;
  }

  /** The settings the plane runs with. */
  public ZmqSettings settings() {
    return settings;
  }

  @Override
  public boolean connectsToChannels() {
    return settings.mode() != ZmqSettings.Mode.BROKER_URL;
  }

  @Override
  public EventSubscription subscribe(EventScope scope, String topic, EventListener listener)
      throws EventPlaneException {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(listener, "listener");
    if (topic.isEmpty()) {
      throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT, "topic must not be empty");
    }
    ZmqSubscription s;
    synchronized (lifecycle) {
      if (closed) {
        throw new EventPlaneException(EventPlaneException.Kind.CLOSED, "ZMQ event plane is closed");
      }
      s = new ZmqSubscription(this, context, counters, settings, scope, topic, listener);
      subscriptions.add(s);
      running.add(s);
    }
    try {
      s.start();
    } catch (EventPlaneException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** A snapshot of the counters of every subscription made so far. */
  public ZmqStats stats() {
    return counters.snapshot();
  }

  /** The open subscriptions. */
  List<ZmqSubscription> subscriptions() {
    return List.copyOf(subscriptions);
  }

  void forget(ZmqSubscription s) {
    subscriptions.remove(s);
  }

  /** Called by {@code s}'s receive thread as it ends, however it ends. */
  void stopped(ZmqSubscription s) {
    running.remove(s);
  }

  /**
   * Closes every subscription, waits for every receive thread to end (those of subscriptions their listener closed
   * included: a socket must not be closed under the thread that uses it), then terminates the ZMQ context. A receive
   * thread that has not ended within {@link ZmqSubscription#STOP_WAIT_MS} is logged and counted, and the context is
   * then left open: terminating it would block until that thread's socket closed.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
    }
    for (ZmqSubscription s : subscriptions) {
      s.close();
    }
    boolean allStopped = true;
    for (ZmqSubscription s : running) {
      allStopped &= s.awaitStopped();
    }
    if (allStopped) {
      context.close();
      LOG.info("ZMQ event plane closed: {}", counters.snapshot());
    } else {
      LOG.error("ZMQ event plane closed with {} receive thread(s) still running; its ZMQ context is left open: {}",
          running.size(), counters.snapshot());
    }
  }
}
