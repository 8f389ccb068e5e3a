package dev.kvrelay.spi.eventplane;

import dev.kvrelay.api.EventScope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: an event plane inside one JVM (provider name {@code mem}), the embedded default and the
 * test harness. Publishers encode every message with {@link EventPlaneCodec} and subscriptions decode
 * the bytes, so everything goes through the real wire format.
 *
 * <p>A subject is {@link EventScope#subject(String)}; a subscription receives the messages
 * of publishers on the same subject: all of them ({@link #create()}, like NATS), or only those whose
 * {@link ChannelLocator.InMemory} channel it connected to ({@link #withChannels()}, like ZMQ direct mode).
 * Each publisher numbers its messages 0, 1, 2, … and can drop, duplicate or hold back (reorder) messages
 * for fault tests. Each subscription has its own daemon delivery thread and an unbounded queue.
 */
public final class InMemoryEventPlane implements EventPlane {
  private static final Logger LOG = LoggerFactory.getLogger(InMemoryEventPlane.class);
  private static final AtomicInteger THREAD_IDS = new AtomicInteger();

  private final boolean connectsToChannels;
  private final LongSupplier clockMs;
  private final CopyOnWriteArrayList<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  private InMemoryEventPlane(boolean connectsToChannels, LongSupplier clockMs) {
    this.connectsToChannels = connectsToChannels;
    this.clockMs = clockMs;
  }

  /** A plane whose subscriptions receive every publisher of their subject (channels are ignored). */
  public static InMemoryEventPlane create() {
    return new InMemoryEventPlane(false, System::currentTimeMillis);
  }

  /** A plane whose subscriptions receive a publisher only after connecting to its channel. */
  public static InMemoryEventPlane withChannels() {
    return new InMemoryEventPlane(true, System::currentTimeMillis);
  }

  /**
   * A plane with an explicit clock for {@code published_at}.
   *
   * @param connectsToChannels see {@link #connectsToChannels()}
   * @param clockMs Unix time in milliseconds
   */
  public static InMemoryEventPlane create(boolean connectsToChannels, LongSupplier clockMs) {
    return new InMemoryEventPlane(connectsToChannels, Objects.requireNonNull(clockMs, "clockMs"));
  }

  @Override
  public boolean connectsToChannels() {
    return connectsToChannels;
  }

  /**
   * A publisher of {@code topic} in {@code scope} with {@code publisherId}; its first message has
   * sequence 0.
   */
  public Publisher publisher(EventScope scope, String topic, long publisherId) {
    return new Publisher(scope, topic, publisherId);
  }

  @Override
  public EventSubscription subscribe(EventScope scope, String topic, EventListener listener)
      throws EventPlaneException {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(listener, "listener");
    if (closed) {
      throw new EventPlaneException(EventPlaneException.Kind.CLOSED, "in-memory event plane is closed");
    }
    Subscription s = new Subscription(scope, topic, listener);
    subscriptions.add(s);
    if (closed) {
      s.close();
      throw new EventPlaneException(EventPlaneException.Kind.CLOSED, "in-memory event plane is closed");
    }
    s.start();
    return s;
  }

  @Override
  public void close() {
    closed = true;
    for (Subscription s : subscriptions) {
      s.close();
    }
  }

  private void route(String subject, long publisherId, byte[] bytes) {
    for (Subscription s : subscriptions) {
      if (s.subject.equals(subject) && (!connectsToChannels || s.isConnected(publisherId))) {
        s.enqueue(bytes);
      }
    }
  }

  /**
   * Thread-safe (publishing is serialized per publisher, so the sequence order is the delivery order): one
   * publisher incarnation on one subject.
   */
  public final class Publisher {
    private final EventScope scope;
    private final String topic;
    private final String subject;
    private final long publisherId;
    private long nextSequence;
    private int dropRemaining;
    private int duplicateRemaining;
    private int holdRemaining;
    private final List<byte[]> held = new ArrayList<>();

    private Publisher(EventScope scope, String topic, long publisherId) {
      this.scope = Objects.requireNonNull(scope, "scope");
      this.topic = Objects.requireNonNull(topic, "topic");
      this.subject = scope.subject(topic);
      this.publisherId = publisherId;
    }

    /** The publisher id. */
    public long publisherId() {
      return publisherId;
    }

    /** The scope published to. */
    public EventScope scope() {
      return scope;
    }

    /** The topic published to. */
    public String topic() {
      return topic;
    }

    /** The channel a subscription connects to in order to receive this publisher. */
    public ChannelLocator channel() {
      return new ChannelLocator.InMemory(publisherId);
    }

    /** The sequence the next message will carry. */
    public synchronized long nextSequence() {
      return nextSequence;
    }

    /**
     * Publishes a KV event; returns the envelope it was sent with.
     *
     * @throws IllegalArgumentException if this publisher's topic carries loads
     */
    public EventEnvelope publish(RouterEvent event) {
      if (EventTopics.carriesLoad(topic)) {
        throw new IllegalArgumentException("topic " + topic + " carries ActiveLoad payloads");
      }
      return send(EventPlaneCodec.encodeRouterEvent(event));
    }

    /**
     * Publishes a load report; returns the envelope it was sent with.
     *
     * @throws IllegalArgumentException if this publisher's topic does not carry loads
     */
    public EventEnvelope publish(ActiveLoad load) {
      if (!EventTopics.carriesLoad(topic)) {
        throw new IllegalArgumentException("topic " + topic + " carries RouterEvent payloads");
      }
      return send(EventPlaneCodec.encodeActiveLoad(load));
    }

    /**
     * Publishes an envelope around arbitrary payload bytes (a payload decoding failure for fault tests);
     * consumes a sequence number like any message.
     */
    public EventEnvelope publishPayload(byte[] payload) {
      return send(payload);
    }

    /**
     * Sends raw message bytes as they are (no envelope is added, no sequence consumed): an undecodable or
     * forged message for fault tests. Fault settings apply.
     */
    public synchronized void publishRaw(byte[] messageBytes) {
      transmit(messageBytes.clone());
    }

    private synchronized EventEnvelope send(byte[] payload) {
      EventEnvelope env = new EventEnvelope(publisherId, nextSequence++, clockMs.getAsLong(), topic);
      transmit(EventPlaneCodec.encodeEnvelope(env, payload));
      return env;
    }

    private void transmit(byte[] bytes) {
      if (dropRemaining > 0) {
        dropRemaining--;
        return;
      }
      if (holdRemaining > 0) {
        holdRemaining--;
        held.add(bytes);
        return;
      }
      route(subject, publisherId, bytes);
      if (duplicateRemaining > 0) {
        duplicateRemaining--;
        route(subject, publisherId, bytes);
      }
    }

    // Fault knobs for tests: package-private, driven through the test-jar's PublisherFaults.

    /** Drops the next {@code count} messages (their sequence numbers are still consumed: a gap). */
    synchronized void dropNext(int count) {
      dropRemaining = requireCount(count);
    }

    /** Delivers each of the next {@code count} messages twice. */
    synchronized void duplicateNext(int count) {
      duplicateRemaining = requireCount(count);
    }

    /** Holds back the next {@code count} messages until {@link #releaseHeld()} (reordering them). */
    synchronized void holdNext(int count) {
      holdRemaining = requireCount(count);
    }

    /** Delivers the held-back messages now, in the order they were published. */
    synchronized void releaseHeld() {
      for (byte[] b : held) {
        route(subject, publisherId, b);
      }
      held.clear();
    }

    private int requireCount(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("count must not be negative: " + count);
      }
      return count;
    }
  }

  /** Thread-safe: one subscription and its delivery thread. */
  private final class Subscription implements EventSubscription {
    private final EventScope scope;
    private final String topic;
    private final String subject;
    private final EventListener listener;
    private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
    private final Set<Long> connected = new HashSet<>();
    private final Thread thread;
    private volatile boolean closed;

    Subscription(EventScope scope, String topic, EventListener listener) {
      this.scope = scope;
      this.topic = topic;
      this.subject = scope.subject(topic);
      this.listener = listener;
      this.thread = new Thread(this::deliverLoop, "kvrelay-mem-events-" + THREAD_IDS.incrementAndGet());
      this.thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    @Override
    public EventScope scope() {
      return scope;
    }

    @Override
    public String topic() {
      return topic;
    }

    synchronized boolean isConnected(long publisherId) {
      return connected.contains(publisherId);
    }

    @Override
    public void connect(ChannelLocator channel) throws EventPlaneException {
      if (closed) {
        throw new EventPlaneException(EventPlaneException.Kind.CLOSED, "subscription is closed");
      }
      if (!(channel instanceof ChannelLocator.InMemory mem)) {
        if (!connectsToChannels) {
          return;
        }
        throw new EventPlaneException(EventPlaneException.Kind.UNSUPPORTED_CHANNEL,
            "the in-memory plane connects only to in-memory channels, not " + channel);
      }
      synchronized (this) {
        connected.add(mem.publisherId());
      }
    }

    @Override
    public void disconnect(ChannelLocator channel) {
      if (channel instanceof ChannelLocator.InMemory mem) {
        synchronized (this) {
          connected.remove(mem.publisherId());
        }
      }
    }

    void enqueue(byte[] bytes) {
      if (!closed) {
        queue.add(bytes);
      }
    }

    private void deliverLoop() {
      while (!closed) {
        byte[] bytes;
        try {
          bytes = queue.take();
        } catch (InterruptedException e) {
          return;
        }
        if (closed) {
          return;
        }
        try {
          try {
            EventPlaneCodec.decodeMessage(bytes, topic).deliverTo(listener);
          } catch (EventDecodeException e) {
            listener.onDecodeError(e, e.publisherId());
          }
        } catch (RuntimeException e) {
          LOG.warn("event listener failed on " + subject + "; delivery continues", e);
        }
      }
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      subscriptions.remove(this);
      queue.clear();
      queue.add(new byte[0]);
      if (Thread.currentThread() != thread && thread.isAlive()) {
        boolean interrupted = false;
        while (thread.isAlive()) {
          try {
            thread.join();
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
