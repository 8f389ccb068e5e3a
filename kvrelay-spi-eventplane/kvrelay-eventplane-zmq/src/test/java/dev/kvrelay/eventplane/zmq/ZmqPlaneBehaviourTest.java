package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventPlaneProvider;
import dev.kvrelay.spi.eventplane.EventPlaneProviders;
import dev.kvrelay.spi.eventplane.EventPlaneSettings;
import dev.kvrelay.spi.eventplane.EventSubscription;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.PublisherSequences;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Channel handling, modes, the provider and listener edge cases of the ZMQ plane, with jeromq publishers. */
class ZmqPlaneBehaviourTest {
  static final EventScope SCOPE = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final long WAIT_S = 30;
  @AutoClose final Closer closer = new Closer();


  static RouterEvent event(long worker, long id) {
    return new RouterEvent(worker, StorageTier.DEVICE, ResidencyDomain.WORKER, id, 0, KvEventData.Cleared.INSTANCE);
  }

  /** Publishes event(worker, 0) until something arrives. */
  static void warm(JeromqPublisher p, PeerRecorder r, long worker) throws Exception {
    long deadline = System.nanoTime() + WAIT_S * 1_000_000_000L;
    while (r.deliveredCount() == 0) {
      p.publish(event(worker, 0));
      Thread.sleep(20);
      assertThat(System.nanoTime()).as("warm-up within %d s", WAIT_S).isLessThan(deadline);
    }
  }

  @Test
  void serviceLoaderFindsTheZmqProviderAndItIsTheBest() throws Exception {
    EventPlaneProvider p = EventPlaneProviders.load().byName("zmq");
    assertThat(p).isInstanceOf(ZmqEventPlaneProvider.class);
    assertThat(p.artifact()).isEqualTo("dev.kvrelay:kvrelay-eventplane-zmq");
    assertThat(EventPlaneProviders.load().best().name()).isEqualTo("zmq");
    EventPlane plane = closer.add(p.open(new EventPlaneSettings(Map.of(ZmqSettings.IO_THREADS, "3"))));
    assertThat(((ZmqEventPlane) plane).settings()).isEqualTo(ZmqSettings.direct(3));
    assertThat(plane.connectsToChannels()).isTrue();
    assertThatThrownBy(() -> p.open(new EventPlaneSettings(Map.of(ZmqSettings.IO_THREADS, "none"))))
        .isInstanceOfSatisfying(EventPlaneException.class,
            e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.INVALID_ARGUMENT));
  }

  @Test
  void directModeRefusesMalformedAndForeignChannels() throws Exception {
    ZmqEventPlane plane = closer.add(ZmqEventPlane.open(ZmqSettings.direct(1)));
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, new PeerRecorder()));
    assertThatThrownBy(() -> s.connect(new ChannelLocator.Zmq(1, "tcp://nohost")))
        .isInstanceOfSatisfying(EventPlaneException.class,
            e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.INVALID_ARGUMENT));
    assertThatThrownBy(() -> s.connect(new ChannelLocator.Nats("namespace.dynamo")))
        .isInstanceOfSatisfying(EventPlaneException.class,
            e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.UNSUPPORTED_CHANNEL));
    assertThatThrownBy(() -> s.connect(new ChannelLocator.ZmqBroker(List.of("tcp://a:1"), List.of("tcp://a:2"))))
        .isInstanceOfSatisfying(EventPlaneException.class,
            e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.UNSUPPORTED_CHANNEL));
    s.disconnect(new ChannelLocator.Zmq(9, "tcp://127.0.0.1:1")); // unknown: ignored
    assertThatThrownBy(() -> plane.subscribe(SCOPE, "", new PeerRecorder())).isInstanceOf(EventPlaneException.class);
  }

  @Test
  void twoPublisherIdsOnOneEndpointShareTheConnection() throws Exception {
    ZmqEventPlane plane = closer.add(ZmqEventPlane.open(ZmqSettings.direct(1)));
    JeromqPublisher p = closer.add(JeromqPublisher.direct(EventTopics.KV_EVENTS, 70));
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    ChannelLocator.Zmq mine = (ChannelLocator.Zmq) p.channel();
    ChannelLocator.Zmq stale = new ChannelLocator.Zmq(69, mine.endpoint()); // an older advertisement, same port
    s.connect(stale);
    s.connect(mine);
    warm(p, r, 1);
    s.disconnect(stale); // the endpoint stays connected for publisher 70
    p.publish(event(1, 1));
    PeerRecorder.poll(() -> r.delivered().stream().anyMatch(d -> ((RouterEvent) d.payload()).eventId() == 1),
        WAIT_S, () -> "event 1 after the stale channel went");
    s.disconnect(mine);
    int before = r.deliveredCount();
    long quietUntil = System.nanoTime() + 300_000_000L; // a message that must not arrive: watch a quiet period
    while (System.nanoTime() < quietUntil) {
      p.publish(event(1, 2));
      Thread.sleep(20);
    }
    assertThat(r.deliveredCount()).as("nothing once the last channel of the endpoint went").isEqualTo(before);
  }

  @Test
  void discoveredBrokerModeConnectsToTheBrokerChannelsGiven() throws Exception {
    JeromqBroker broker = closer.add(new JeromqBroker());
    EventPlane plane = closer.add(new ZmqEventPlaneProvider().open(
        new EventPlaneSettings(Map.of(ZmqSettings.BROKER_ENABLED, "true"))));
    assertThat(plane.connectsToChannels()).isTrue();
    PeerRecorder r = new PeerRecorder();
    EventSubscription s = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    JeromqPublisher p = closer.add(JeromqPublisher.brokered(SCOPE, EventTopics.KV_EVENTS, 5, broker.xsub()));
    assertThatThrownBy(() -> s.connect(p.channel())).as("publishers have no channel in broker mode")
        .isInstanceOfSatisfying(EventPlaneException.class,
            e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.UNSUPPORTED_CHANNEL));
    ChannelLocator.ZmqBroker channel = new ChannelLocator.ZmqBroker(List.of(broker.xsub()), List.of(broker.xpub()));
    s.connect(channel);
    s.connect(channel);
    warm(p, r, 2);
    assertThat(r.breaks()).singleElement().isInstanceOf(EventPlaneFault.NewPublisher.class);
    assertThat(((ZmqEventPlane) plane).stats().droppedTotal()).isZero();
  }

  /**
   * Two HA brokers forward every message of a publisher connected to both: each arrives twice, is delivered
   * once and the second copy is counted as a DUPLICATE drop; the sequence shows no break but the first message.
   */
  @Test
  void withSeveralBrokersEveryMessageIsDeliveredOnceAndItsCopiesCountedAsDuplicates() throws Exception {
    JeromqBroker a = closer.add(new JeromqBroker());
    JeromqBroker b = closer.add(new JeromqBroker());
    ZmqEventPlane plane = closer.add(ZmqEventPlane.open(
        ZmqSettings.broker(1, List.of(a.xsub(), b.xsub()), List.of(a.xpub(), b.xpub()))));
    PeerRecorder r = new PeerRecorder();
    closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    JeromqPublisher p = closer.add(JeromqPublisher.brokered(SCOPE, EventTopics.KV_EVENTS, 9, a.xsub()))
        .alsoConnect(b.xsub());
    long deadline = System.nanoTime() + WAIT_S * 1_000_000_000L;
    long id = 0;
    while (plane.stats().dropped(ZmqDrop.DUPLICATE) == 0) { // until both brokers forward
      p.publish(event(9, id++));
      Thread.sleep(20);
      assertThat(System.nanoTime()).as("a copy through each broker within %d s", WAIT_S).isLessThan(deadline);
    }
    long duplicatesBefore = plane.stats().dropped(ZmqDrop.DUPLICATE);
    long first = id;
    for (int i = 0; i < 50; i++) {
      p.publish(event(9, id++));
    }
    long last = id - 1;
    PeerRecorder.poll(() -> plane.stats().dropped(ZmqDrop.DUPLICATE) - duplicatesBefore >= 50
        && r.delivered().stream().anyMatch(d -> ((RouterEvent) d.payload()).eventId() == last), WAIT_S,
        () -> "50 events through both brokers, got " + plane.stats());
    List<Long> ids = r.delivered().stream().map(d -> ((RouterEvent) d.payload()).eventId()).toList();
    assertThat(ids).as("each event delivered once").doesNotHaveDuplicates();
    assertThat(ids).containsSubsequence(LongStream.rangeClosed(first, last).boxed().toList());
    assertThat(r.breaks()).singleElement().isInstanceOf(EventPlaneFault.NewPublisher.class);
    assertThat(plane.stats().sequenceRegressions()).isZero();
  }

  /**
   * One publisher more than a subscription's sequence check remembers: the least recently heard one is forgotten and
   * counted in {@code publisherEvictions}; its next message is a NewPublisher again (and forgets the next oldest).
   */
  @Test
  void publishersBeyondTheSequenceCapacityAreEvictedAndCounted() throws Exception {
    JeromqBroker broker = closer.add(new JeromqBroker());
    ZmqEventPlane plane = closer.add(ZmqEventPlane.open(
        ZmqSettings.broker(1, List.of(broker.xsub()), List.of(broker.xpub()))));
    PeerRecorder r = new PeerRecorder();
    closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    JeromqPublisher first = closer.add(JeromqPublisher.brokered(SCOPE, EventTopics.KV_EVENTS, 1, broker.xsub()));
    warm(first, r, 1); // publisher 1, the least recently heard from now on
    int others = PublisherSequences.DEFAULT_CAPACITY; // 1 + 65 536 publishers: one too many
    for (int i = 0; i < others; i++) {
      first.publishAs(2 + i, 0, event(2 + i, 0));
    }
    // one socket and one broker: messages arrive in order, each counted before it is delivered
    PeerRecorder.poll(() -> r.lastDeliveredIs(1 + others, 0), WAIT_S,
        () -> "the other publishers' messages, got " + plane.stats());
    assertThat(plane.stats().publisherEvictions()).as("publisher 1 forgotten").isEqualTo(1);
    assertThat(plane.stats().newPublishers()).isEqualTo(1 + others);

    long next = first.publish(event(1, 1)).sequence();
    PeerRecorder.poll(() -> r.lastDeliveredIs(1, next), WAIT_S,
        () -> "publisher 1's next message, got " + plane.stats());
    ZmqStats st = plane.stats();
    assertThat(st.newPublishers()).as("publisher 1 is new again").isEqualTo(2 + others);
    assertThat(st.publisherEvictions()).as("and publisher 2 forgotten for it").isEqualTo(2);
    assertThat(st.droppedTotal()).isZero();
    assertThat(st.sequenceGaps() + st.sequenceRegressions()).isZero();
  }

  @Test
  void aListenerMayCloseItsSubscriptionAndFailuresAreCounted() throws Exception {
    ZmqEventPlane plane = closer.add(ZmqEventPlane.open(ZmqSettings.direct(1)));
    JeromqPublisher p = closer.add(JeromqPublisher.direct(EventTopics.KV_EVENTS, 80));
    EventSubscription[] self = new EventSubscription[1];
    PeerRecorder r = new PeerRecorder() {
      @Override
      public void onFault(EventPlaneFault signal) {
        super.onFault(signal);
        throw new IllegalStateException("injected");
      }

      @Override
      public void onKvEvent(dev.kvrelay.spi.eventplane.EventEnvelope envelope, RouterEvent event) {
        super.onKvEvent(envelope, event);
        if (event.eventId() == 7) {
          self[0].close();
        }
      }
    };
    self[0] = closer.add(plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r));
    self[0].connect(p.channel());
    warm(p, r, 3);
    assertThat(plane.stats().listenerFailures()).as("the failing onFault").isEqualTo(1);
    for (int i = 7; i < 20; i++) {
      p.publish(event(3, i));
    }
    PeerRecorder.poll(() -> plane.subscriptions().isEmpty(), WAIT_S, () -> "closed from its listener");
    assertThat(r.delivered()).last().satisfies(d -> assertThat(((RouterEvent) d.payload()).eventId()).isEqualTo(7));
    assertThatThrownBy(() -> self[0].connect(p.channel())).isInstanceOfSatisfying(EventPlaneException.class,
        e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.CLOSED));
  }

  /**
   * A listener that closes its own subscription and then keeps its thread: the plane's close must wait for that
   * receive thread to end before it terminates the ZMQ context (which would otherwise close the socket under it).
   */
  @Test
  void planeCloseWaitsForTheReceiveThreadOfASelfClosedSubscription() throws Exception {
    ZmqEventPlane plane = ZmqEventPlane.open(ZmqSettings.direct(1));
    JeromqPublisher p = closer.add(JeromqPublisher.direct(EventTopics.KV_EVENTS, 80));
    HoldingListener r = new HoldingListener(true);
    try {
      r.hold(plane, p);
      assertThat(plane.subscriptions()).as("the subscription closed itself").isEmpty();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(plane::close);
      // The close must still be waiting: the receive thread is held in the listener. A wrong close returns at once.
      assertThatThrownBy(() -> closing.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
      assertThat(r.receiver.get().isAlive()).isTrue();
      r.release.countDown();
      closing.get(WAIT_S, TimeUnit.SECONDS);
      assertThat(r.receiver.get().isAlive()).as("the receive thread ended before close returned").isFalse();
      assertThat(plane.stats().stuckReceivers()).isZero();
      assertThatThrownBy(() -> plane.subscribe(SCOPE, EventTopics.KV_EVENTS, r))
          .isInstanceOfSatisfying(EventPlaneException.class,
              e -> assertThat(e.kind()).isEqualTo(EventPlaneException.Kind.CLOSED));
    } finally {
      r.release.countDown();
      plane.close();
    }
  }

  /**
   * A receive thread held in its listener past {@link ZmqSubscription#STOP_WAIT_MS}: the subscription's close and
   * then the plane's each give up after the bound instead of hanging, the thread is counted once, and the plane
   * leaves its context open rather than terminate it under that thread. Takes twice the bound (20 s).
   */
  @Test
  void aReceiveThreadThatDoesNotEndIsCountedOnceAndCloseReturns() throws Exception {
    ZmqEventPlane plane = ZmqEventPlane.open(ZmqSettings.direct(1));
    JeromqPublisher p = closer.add(JeromqPublisher.direct(EventTopics.KV_EVENTS, 80));
    HoldingListener r = new HoldingListener(false);
    try {
      EventSubscription sub = r.hold(plane, p);
      CompletableFuture.runAsync(sub::close).get(ZmqSubscription.STOP_WAIT_MS + WAIT_S * 1000, TimeUnit.MILLISECONDS);
      assertThat(plane.stats().stuckReceivers()).as("after the subscription's close").isEqualTo(1);
      CompletableFuture.runAsync(plane::close).get(ZmqSubscription.STOP_WAIT_MS + WAIT_S * 1000, TimeUnit.MILLISECONDS);
      assertThat(plane.stats().stuckReceivers()).as("the plane's close waited again, counted nothing new").isEqualTo(1);
      assertThat(r.receiver.get().isAlive()).isTrue();
    } finally {
      r.release.countDown();
    }
    r.receiver.get().join(WAIT_S * 1000);
    assertThat(r.receiver.get().isAlive()).as("released, the receive thread ends").isFalse();
  }

  /**
   * Not thread-safe beyond its latches: a recorder whose receive thread, at event 7, optionally closes its own
   * subscription and then stays in the listener until {@link #release} opens.
   */
  private static final class HoldingListener extends PeerRecorder {
    final CountDownLatch inListener = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicReference<Thread> receiver = new AtomicReference<>();
    private final boolean closeSelf;
    private volatile @org.jspecify.annotations.Nullable EventSubscription self;

    HoldingListener(boolean closeSelf) {
      this.closeSelf = closeSelf;
    }

    /** Subscribes on {@code plane}, connects to {@code p}, warms up, and returns once event 7 holds the thread. */
    EventSubscription hold(ZmqEventPlane plane, JeromqPublisher p) throws Exception {
      EventSubscription s = plane.subscribe(SCOPE, EventTopics.KV_EVENTS, this);
      self = s;
      s.connect(p.channel());
      warm(p, this, 3);
      p.publish(event(3, 7));
      assertThat(inListener.await(WAIT_S, TimeUnit.SECONDS)).as("event 7 reached the listener").isTrue();
      return s;
    }

    @Override
    public void onKvEvent(dev.kvrelay.spi.eventplane.EventEnvelope envelope, RouterEvent event) {
      super.onKvEvent(envelope, event);
      if (event.eventId() == 7) {
        receiver.set(Thread.currentThread());
        EventSubscription s = self;
        if (closeSelf && s != null) {
          s.close();
        }
        inListener.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
