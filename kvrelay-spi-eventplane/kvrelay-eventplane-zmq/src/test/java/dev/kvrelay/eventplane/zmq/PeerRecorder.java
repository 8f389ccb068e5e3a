package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventDecodeException;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Thread-safe (synchronized; subclasses only add injected failures): records one subscription's callbacks in order, counting the Python peer's warm-up
 * markers instead of keeping them; also the expected values of the peer's numbered messages (the Java mirror of
 * {@code router_event} / {@code active_load} in zmq_peer.py).
 */
class PeerRecorder implements EventListener {
  /** Immutable: one delivered message. */
  record Delivered(EventEnvelope envelope, Object payload) {}

  /** Immutable: one decode error. */
  record Failed(EventDecodeException error, OptionalLong publisherId) {}

  final AtomicLong markers = new AtomicLong();
  private final List<Object> log = new ArrayList<>();
  private int deliveredCount;

  @Override
  public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
    if (event.workerId() == PythonPeer.MARKER_WORKER) {
      markers.incrementAndGet();
      return;
    }
    add(new Delivered(envelope, event), true);
  }

  @Override
  public void onLoad(EventEnvelope envelope, ActiveLoad load) {
    if (load.workerId() == PythonPeer.MARKER_WORKER) {
      markers.incrementAndGet();
      return;
    }
    add(new Delivered(envelope, load), true);
  }

  @Override
  public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
    add(new Failed(error, publisherId), false);
  }

  @Override
  public void onFault(EventPlaneFault signal) {
    add(signal, false);
  }

  private synchronized void add(Object o, boolean delivered) {
    log.add(o);
    if (delivered) {
      deliveredCount++;
    }
  }

  /** Every callback so far, in order (markers excluded). */
  synchronized List<Object> log() {
    return List.copyOf(log);
  }

  synchronized int deliveredCount() {
    return deliveredCount;
  }

  /** The delivered messages so far. */
  List<Delivered> delivered() {
    return log().stream().filter(Delivered.class::isInstance).map(Delivered.class::cast).toList();
  }

  /** Whether the last message delivered so far is {@code publisherId}'s message {@code sequence}. */
  synchronized boolean lastDeliveredIs(long publisherId, long sequence) {
    for (int i = log.size() - 1; i >= 0; i--) {
      if (log.get(i) instanceof Delivered d) {
        return d.envelope().publisherId() == publisherId && d.envelope().sequence() == sequence;
      }
    }
    return false;
  }

  /** The sequence breaks so far. */
  List<EventPlaneFault.SequenceFault> breaks() {
    return log().stream().filter(EventPlaneFault.SequenceFault.class::isInstance).map(EventPlaneFault.SequenceFault.class::cast).toList();
  }

  /** The decode errors so far. */
  List<Failed> errors() {
    return log().stream().filter(Failed.class::isInstance).map(Failed.class::cast).toList();
  }

  /** Waits until {@code n} messages were delivered. */
  List<Delivered> awaitDelivered(int n, long seconds) throws InterruptedException {
    poll(() -> deliveredCount() >= n, seconds, () -> "delivered " + deliveredCount() + " of " + n);
    return delivered();
  }

  /** Polls {@code condition} every 5 ms until it holds, failing after {@code seconds}. */
  static void poll(BooleanSupplier condition, long seconds, java.util.function.Supplier<String> what)
      throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("within %d s: %s", seconds, what.get()).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  // ------------------------------------------------------------------ the peer's numbered values

  /** zmq_peer.py {@code router_event(worker, i)}. */
  static RouterEvent routerEvent(long worker, long i) {
    KvEventData data;
    if (i % 17 == 16) {
      data = KvEventData.Cleared.INSTANCE;
    } else if (i % 5 == 4) {
      data = KvEventData.Removed.of(i * 7919, -1L - i);
    } else {
      List<StoredBlock> blocks = new ArrayList<>();
      for (long k = 0; k < 1 + i % 3; k++) {
        blocks.add(StoredBlock.of(i * 7919 + k, (i + k) * 0x9E3779B97F4A7C15L));
      }
      data = new KvEventData.Stored(i % 3 == 0 ? OptionalLong.empty() : OptionalLong.of(i * 31),
          i % 2 == 0 ? OptionalLong.empty() : OptionalLong.of(i % 1000), blocks);
    }
    return new RouterEvent(worker, StorageTier.DEVICE, ResidencyDomain.WORKER, i, (int) (i % 4), data);
  }

  /** zmq_peer.py {@code active_load(worker, i)}. */
  static ActiveLoad activeLoad(long worker, long i) {
    return new ActiveLoad(worker, (int) (i % 4), OptionalLong.of(i * 3), OptionalLong.empty(), null,
        OptionalLong.of(100 + i));
  }
}
