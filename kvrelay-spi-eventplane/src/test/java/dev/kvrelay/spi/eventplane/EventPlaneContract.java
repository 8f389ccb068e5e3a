package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Not thread-safe: one instance per test method (JUnit's default). The contract every {@link EventPlane}
 * implementation must meet; shipped in this module's test-jar so the NATS and ZMQ plugin tests subclass it
 * and supply a plane and a publisher handle.
 *
 * <p>Covered: delivery of {@code kv-events} and {@code kv_metrics} with their envelope fields; per-publisher
 * order on one delivery thread per subscription; scope and topic isolation; decode errors reported and not
 * fatal; listener exceptions not fatal; {@code close()} of a subscription and of the plane stopping delivery;
 * {@code connect}/{@code disconnect} of channels (or their being ignored, when
 * {@link EventPlane#connectsToChannels()} is false).
 *
 * <p>Transports with a slow-joiner window (ZMQ PUB/SUB) are handled by a warm-up: the contract publishes
 * marker messages until one arrives and ignores markers afterwards.
 */
public abstract class EventPlaneContract {

  /**
   * Not thread-safe unless the implementation says so (the contract calls it from the test thread only): a
   * publisher of one topic in one scope with one publisher id, as a worker runs it. Sequences start at 0 and
   * grow by one per message.
   */
  public interface ContractPublisher extends AutoCloseable {
    /** The publisher id (envelope {@code publisher_id}). */
    long publisherId();

    /** The channel a subscription connects to in order to receive this publisher. */
    ChannelLocator channel();

    /** Publishes a KV event and returns the envelope it was sent with. */
    EventEnvelope publish(RouterEvent event) throws Exception;

    /** Publishes a load report and returns the envelope it was sent with. */
    EventEnvelope publish(ActiveLoad load) throws Exception;

    /**
     * Sends a message the plane cannot decode (e.g. a garbage envelope in otherwise valid framing); the
     * subscription must report it through {@link EventListener#onDecodeError}.
     */
    void publishUndecodable() throws Exception;

    @Override
    void close() throws Exception;
  }

  /** A fresh plane; the contract closes it after the test. */
  protected abstract EventPlane openPlane() throws Exception;

  /** A publisher on {@code plane}'s transport; the contract closes it after the test. */
  protected abstract ContractPublisher openPublisher(EventPlane plane, EventScope scope, String topic, long publisherId)
      throws Exception;

  /** How long to wait for a message that must arrive. */
  protected Duration deliveryTimeout() {
    return Duration.ofSeconds(10);
  }

  /** How long to watch for a message that must not arrive. */
  protected Duration quietPeriod() {
    return Duration.ofMillis(300);
  }

  // ------------------------------------------------------------------ fixtures

  static final long WARMUP_EVENT_ID = 0x7EAD_BEEF_0000_0000L;
  static final long WARMUP_WORKER = 0x7EAD_BEEF_0000_0001L;
  static final EventScope SCOPE_A = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend", "generate"));
  static final EventScope SCOPE_B = EventScope.endpoint(new DynamoEndpointId("dynamo", "backend2", "generate"));

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private @Nullable EventPlane plane;

  @AfterEach
  void closeEverything() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private EventPlane plane() throws Exception {
    if (plane == null) {
      plane = openPlane();
      toClose.add(plane);
    }
    return plane;
  }

  private ContractPublisher publisher(EventScope scope, String topic, long id) throws Exception {
    ContractPublisher p = openPublisher(plane(), scope, topic, id);
    toClose.add(p);
    return p;
  }

  private EventSubscription subscribe(EventScope scope, String topic, Recorder r) throws Exception {
    EventSubscription s = plane().subscribe(scope, topic, r);
    toClose.add(s);
    return s;
  }

  static RouterEvent event(long workerId, long eventId, KvEventData data) {
    return new RouterEvent(workerId, StorageTier.DEVICE, ResidencyDomain.WORKER, eventId, 0, data);
  }

  static RouterEvent warmupEvent() {
    return event(WARMUP_WORKER, WARMUP_EVENT_ID, KvEventData.Cleared.INSTANCE);
  }

  static ActiveLoad warmupLoad() {
    return new ActiveLoad(WARMUP_WORKER, 0, OptionalLong.empty(), OptionalLong.empty(), null, OptionalLong.empty());
  }

  /** Immutable and thread-safe: one callback received. */
  record Received(@Nullable EventEnvelope envelope, @Nullable Object payload,
      @Nullable EventDecodeException error, OptionalLong errorPublisher, Thread thread) {
    boolean isWarmup() {
      return (payload instanceof RouterEvent e && e.workerId() == WARMUP_WORKER)
          || (payload instanceof ActiveLoad l && l.workerId() == WARMUP_WORKER);
    }
  }

  /** Thread-safe: records callbacks and checks they are never concurrent. */
  static final class Recorder implements EventListener {
    final LinkedBlockingQueue<Received> queue = new LinkedBlockingQueue<>();
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();
    final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    volatile int throwOnNextEvents;

    private void record(Received r) {
      if (inside.incrementAndGet() != 1) {
        overlaps.incrementAndGet();
      }
      threads.add(Thread.currentThread());
      queue.add(r);
      inside.decrementAndGet();
    }

    @Override
    public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
      record(new Received(envelope, event, null, OptionalLong.empty(), Thread.currentThread()));
      if (throwOnNextEvents > 0 && event.workerId() != WARMUP_WORKER) {
        throwOnNextEvents--;
        throw new IllegalStateException("listener failure injected by the contract");
      }
    }

    @Override
    public void onLoad(EventEnvelope envelope, ActiveLoad load) {
      record(new Received(envelope, load, null, OptionalLong.empty(), Thread.currentThread()));
    }

    @Override
    public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
      record(new Received(null, null, error, publisherId, Thread.currentThread()));
    }
  }

  /** The next non-warm-up callback, failing after the delivery timeout. */
  private Received next(Recorder r) throws InterruptedException {
    long deadline = System.nanoTime() + deliveryTimeout().toNanos();
    while (true) {
      Received x = r.queue.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      assertThat(x).as("a message within %s", deliveryTimeout()).isNotNull();
      if (!x.isWarmup()) {
        return x;
      }
    }
  }

  /** Asserts that no non-warm-up callback arrives during the quiet period. */
  private void assertQuiet(Recorder r) throws InterruptedException {
    long deadline = System.nanoTime() + quietPeriod().toNanos();
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      Received x = r.queue.poll(left, TimeUnit.NANOSECONDS);
      if (x != null && !x.isWarmup()) {
        throw new AssertionError("unexpected delivery: " + x);
      }
    }
  }

  /** Publishes markers until one arrives (slow-joiner window), then drains stragglers. */
  private void warmUp(ContractPublisher p, boolean load, Recorder r) throws Exception {
    long deadline = System.nanoTime() + deliveryTimeout().toNanos();
    while (true) {
      if (load) {
        p.publish(warmupLoad());
      } else {
        p.publish(warmupEvent());
      }
      Received x = r.queue.poll(50, TimeUnit.MILLISECONDS);
      if (x != null) {
        assertThat(x.isWarmup()).as("first delivery is a warm-up marker: %s", x).isTrue();
        break;
      }
      assertThat(System.nanoTime()).as("warm-up delivery within %s", deliveryTimeout()).isLessThan(deadline);
    }
    Received straggler;
    while ((straggler = r.queue.poll(quietPeriod().toMillis() / 3 + 1, TimeUnit.MILLISECONDS)) != null) {
      assertThat(straggler.isWarmup()).as("only warm-up markers during warm-up: %s", straggler).isTrue();
    }
  }

  private void connectIfNeeded(EventSubscription s, ContractPublisher p) throws Exception {
    s.connect(p.channel());
  }

  // ------------------------------------------------------------------ the contract

  @Test
  public void deliversKvEventsWithTheirEnvelopeFields() throws Exception {
    ContractPublisher p = publisher(SCOPE_A, EventTopics.KV_EVENTS, 4_503_599_627_370_001L);
    Recorder r = new Recorder();
    EventSubscription s = subscribe(SCOPE_A, EventTopics.KV_EVENTS, r);
    assertThat(s.scope()).isEqualTo(SCOPE_A);
    assertThat(s.topic()).isEqualTo(EventTopics.KV_EVENTS);
    connectIfNeeded(s, p);
    warmUp(p, false, r);
    long w = Long.parseUnsignedLong("18000000000000000000");
    List<RouterEvent> events = List.of(
        event(w, 1, new KvEventData.Stored(OptionalLong.empty(), OptionalLong.of(0),
            List.of(StoredBlock.of(-2L, Long.parseUnsignedLong("14643705804678351452")), StoredBlock.of(3, 4)))),
        event(w, 2, KvEventData.Removed.of(-2L)),
        new RouterEvent(w, StorageTier.HOST_PINNED, ResidencyDomain.unknown("future"), 3, -1,
            KvEventData.Cleared.INSTANCE));
    List<EventEnvelope> sent = new ArrayList<>();
    for (RouterEvent e : events) {
      long before = System.currentTimeMillis();
      EventEnvelope env = p.publish(e);
      assertThat(env.publishedAtMs()).isBetween(before - 1_000, System.currentTimeMillis() + 1_000);
      sent.add(env);
    }
    for (int i = 0; i < events.size(); i++) {
      Received x = next(r);
      assertThat(x.payload()).isEqualTo(events.get(i));
      EventEnvelope env = Objects.requireNonNull(x.envelope());
      assertThat(env).isEqualTo(sent.get(i));
      assertThat(env.publisherId()).isEqualTo(4_503_599_627_370_001L);
      assertThat(env.topic()).isEqualTo(EventTopics.KV_EVENTS);
      if (i > 0) {
        assertThat(env.sequence()).isEqualTo(sent.get(i - 1).sequence() + 1);
      }
    }
  }

  @Test
  public void deliversLoadsOnKvMetrics() throws Exception {
    ContractPublisher p = publisher(SCOPE_A, EventTopics.KV_METRICS, 77);
    Recorder r = new Recorder();
    EventSubscription s = subscribe(SCOPE_A, EventTopics.KV_METRICS, r);
    connectIfNeeded(s, p);
    warmUp(p, true, r);
    ActiveLoad worker = new ActiveLoad(9, 1, OptionalLong.of(1200), OptionalLong.empty(), null, OptionalLong.of(1500));
    ActiveLoad scheduler = new ActiveLoad(9, 2, OptionalLong.of(3), OptionalLong.of(-1L),
        SchedulerLoadScope.REPLICA_SYNCHRONIZED, OptionalLong.empty());
    EventEnvelope e1 = p.publish(worker);
    EventEnvelope e2 = p.publish(scheduler);
    Received a = next(r);
    Received b = next(r);
    assertThat(a.payload()).isEqualTo(worker);
    assertThat(a.envelope()).isEqualTo(e1);
    assertThat(b.payload()).isEqualTo(scheduler);
    assertThat(b.envelope()).isEqualTo(e2);
    assertThat(e2.sequence()).isEqualTo(e1.sequence() + 1);
    assertThat(e1.topic()).isEqualTo(EventTopics.KV_METRICS);
  }

  @Test
  public void keepsEachPublishersOrderOnOneDeliveryThread() throws Exception {
    ContractPublisher p1 = publisher(SCOPE_A, EventTopics.KV_EVENTS, 101);
    ContractPublisher p2 = publisher(SCOPE_A, EventTopics.KV_EVENTS, 202);
    Recorder r = new Recorder();
    EventSubscription s = subscribe(SCOPE_A, EventTopics.KV_EVENTS, r);
    connectIfNeeded(s, p1);
    connectIfNeeded(s, p2);
    warmUp(p1, false, r);
    warmUp(p2, false, r);
    int n = 200;
    for (int i = 0; i < n; i++) {
      p1.publish(event(1, i, KvEventData.Removed.of(i)));
      p2.publish(event(2, i, KvEventData.Removed.of(i)));
    }
    List<Received> got = new ArrayList<>();
    for (int i = 0; i < 2 * n; i++) {
      got.add(next(r));
    }
    for (long worker : new long[] {1, 2}) {
      List<Received> mine = got.stream().filter(x -> ((RouterEvent) x.payload()).workerId() == worker).toList();
      assertThat(mine).hasSize(n);
      for (int i = 0; i < n; i++) {
        assertThat(((RouterEvent) mine.get(i).payload()).eventId()).isEqualTo(i);
        assertThat(mine.get(i).envelope().publisherId()).isEqualTo(worker == 1 ? 101 : 202);
        if (i > 0) {
          assertThat(mine.get(i).envelope().sequence()).isEqualTo(mine.get(i - 1).envelope().sequence() + 1);
        }
      }
    }
    assertThat(r.threads).as("one delivery thread per subscription").hasSize(1);
    assertThat(r.overlaps.get()).as("callbacks never overlap").isZero();
  }

  @Test
  public void isolatesScopesAndTopics() throws Exception {
    ContractPublisher otherScope = publisher(SCOPE_A, EventTopics.KV_EVENTS, 11);
    ContractPublisher otherTopic = publisher(SCOPE_B, EventTopics.KV_METRICS, 12);
    ContractPublisher mine = publisher(SCOPE_B, EventTopics.KV_EVENTS, 13);
    Recorder r = new Recorder();
    EventSubscription s = subscribe(SCOPE_B, EventTopics.KV_EVENTS, r);
    connectIfNeeded(s, mine);
    connectIfNeeded(s, otherTopic); // same scope, other topic: its channel is known but its topic differs
    warmUp(mine, false, r);
    otherScope.publish(event(1, 1, KvEventData.Cleared.INSTANCE));
    otherTopic.publish(new ActiveLoad(2, 0, OptionalLong.of(1), OptionalLong.empty(), null, OptionalLong.empty()));
    RouterEvent marker = event(3, 3, KvEventData.Cleared.INSTANCE);
    mine.publish(marker);
    assertThat(next(r).payload()).isEqualTo(marker);
    assertQuiet(r);
  }

  @Test
  public void reportsDecodeErrorsAndKeepsDelivering() throws Exception {
    ContractPublisher p = publisher(SCOPE_A, EventTopics.KV_EVENTS, 55);
    Recorder r = new Recorder();
    EventSubscription s = subscribe(SCOPE_A, EventTopics.KV_EVENTS, r);
    connectIfNeeded(s, p);
    warmUp(p, false, r);
    p.publishUndecodable();
    RouterEvent after = event(5, 5, KvEventData.Cleared.INSTANCE);
    p.publish(after);
    Received err = next(r);
    assertThat(err.error()).as("a decode error first: %s", err).isNotNull();
    assertThat(err.error().reason()).isNotNull();
    if (err.errorPublisher().isPresent()) {
      assertThat(err.errorPublisher()).hasValue(55);
      assertThat(err.error().publisherId()).isEqualTo(err.errorPublisher());
    }
    assertThat(next(r).payload()).isEqualTo(after);
  }

  @Test
  public void listenerExceptionsDoNotStopDelivery() throws Exception {
    ContractPublisher p = publisher(SCOPE_A, EventTopics.KV_EVENTS, 56);
    Recorder r = new Recorder();
    EventSubscription s = subscribe(SCOPE_A, EventTopics.KV_EVENTS, r);
    connectIfNeeded(s, p);
    warmUp(p, false, r);
    r.throwOnNextEvents = 1;
    RouterEvent first = event(6, 1, KvEventData.Cleared.INSTANCE);
    RouterEvent second = event(6, 2, KvEventData.Cleared.INSTANCE);
    p.publish(first);
    p.publish(second);
    assertThat(next(r).payload()).isEqualTo(first);
    assertThat(next(r).payload()).isEqualTo(second);
  }

  @Test
  public void closedSubscriptionDeliversNothingMore() throws Exception {
    ContractPublisher p = publisher(SCOPE_A, EventTopics.KV_EVENTS, 57);
    Recorder r = new Recorder();
    Recorder other = new Recorder();
    EventSubscription s = subscribe(SCOPE_A, EventTopics.KV_EVENTS, r);
    EventSubscription keep = subscribe(SCOPE_A, EventTopics.KV_EVENTS, other);
    connectIfNeeded(s, p);
    connectIfNeeded(keep, p);
    warmUp(p, false, r);
    warmUp(p, false, other);
    r.queue.clear();
    s.close();
    s.close(); // idempotent
    RouterEvent e = event(7, 1, KvEventData.Cleared.INSTANCE);
    p.publish(e);
    assertThat(next(other).payload()).as("other subscriptions are unaffected").isEqualTo(e);
    assertQuiet(r);
    assertThatThrownBy(() -> s.connect(p.channel())).isInstanceOf(EventPlaneException.class);
  }

  @Test
  public void closedPlaneDeliversNothingAndRefusesSubscriptions() throws Exception {
    ContractPublisher p = publisher(SCOPE_A, EventTopics.KV_EVENTS, 58);
    Recorder r = new Recorder();
    EventSubscription s = subscribe(SCOPE_A, EventTopics.KV_EVENTS, r);
    connectIfNeeded(s, p);
    warmUp(p, false, r);
    plane().close();
    p.publish(event(8, 1, KvEventData.Cleared.INSTANCE));
    assertQuiet(r);
    assertThatThrownBy(() -> plane().subscribe(SCOPE_A, EventTopics.KV_EVENTS, new Recorder()))
        .isInstanceOfSatisfying(EventPlaneException.class,
            x -> assertThat(x.kind()).isEqualTo(EventPlaneException.Kind.CLOSED));
    plane().close(); // idempotent
  }

  @Test
  public void connectAndDisconnectChannels() throws Exception {
    ContractPublisher p = publisher(SCOPE_A, EventTopics.KV_EVENTS, 59);
    Recorder r = new Recorder();
    EventSubscription s = subscribe(SCOPE_A, EventTopics.KV_EVENTS, r);
    if (plane().connectsToChannels()) {
      p.publish(event(9, 1, KvEventData.Cleared.INSTANCE));
      assertQuiet(r);
      s.connect(p.channel());
      s.connect(p.channel()); // idempotent
      warmUp(p, false, r);
      RouterEvent e = event(9, 2, KvEventData.Cleared.INSTANCE);
      p.publish(e);
      assertThat(next(r).payload()).isEqualTo(e);
      s.disconnect(p.channel());
      p.publish(event(9, 3, KvEventData.Cleared.INSTANCE));
      assertNoEvents(r);
    } else {
      warmUp(p, false, r);
      s.connect(p.channel());
      s.disconnect(p.channel());
      RouterEvent e = event(9, 4, KvEventData.Cleared.INSTANCE);
      p.publish(e);
      assertThat(next(r).payload()).as("channels are ignored by this plane").isEqualTo(e);
    }
  }

  /** No event or load arrives during the quiet period (identity-mismatch errors are tolerated). */
  private void assertNoEvents(Recorder r) throws InterruptedException {
    long deadline = System.nanoTime() + quietPeriod().toNanos();
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      Received x = r.queue.poll(left, TimeUnit.NANOSECONDS);
      if (x != null && !x.isWarmup() && x.payload() != null) {
        throw new AssertionError("delivery after disconnect: " + x);
      }
    }
  }
}
