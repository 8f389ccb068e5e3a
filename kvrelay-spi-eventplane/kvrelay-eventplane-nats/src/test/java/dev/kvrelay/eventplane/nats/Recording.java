package dev.kvrelay.eventplane.nats;

import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventDecodeException;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: a listener that records every callback in arrival order (under its monitor) so tests can
 * wait for conditions with deadlines; it can hold the delivery thread on a latch (slow consumer).
 */
final class Recording implements EventListener {
  /** Immutable and thread-safe: one callback. */
  sealed interface Call permits Event, Load, Fault, DecodeError {}

  /** Immutable and thread-safe: an onKvEvent call. */
  record Event(EventEnvelope envelope, RouterEvent event) implements Call {}

  /** Immutable and thread-safe: an onLoad call. */
  record Load(EventEnvelope envelope, ActiveLoad load) implements Call {}

  /** Immutable and thread-safe: an onFault call. */
  record Fault(EventPlaneFault fault) implements Call {}

  /** Immutable and thread-safe: an onDecodeError call. */
  record DecodeError(EventDecodeException error, OptionalLong publisherId) implements Call {}

  private final List<Call> calls = new ArrayList<>();
  private volatile @Nullable CountDownLatch hold;

  /** Blocks the delivery thread inside the next event callback until {@link #release()}. */
  void holdNextEvent() {
    hold = new CountDownLatch(1);
  }

  void release() {
    CountDownLatch h = hold;
    hold = null;
    if (h != null) {
      h.countDown();
    }
  }

  private void add(Call c) {
    synchronized (this) {
      calls.add(c);
      notifyAll();
    }
  }

  @Override
  public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
    add(new Event(envelope, event));
    CountDownLatch h = hold;
    if (h != null) {
      try {
        h.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void onLoad(EventEnvelope envelope, ActiveLoad load) {
    add(new Load(envelope, load));
  }

  @Override
  public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
    add(new DecodeError(error, publisherId));
  }

  @Override
  public void onFault(EventPlaneFault fault) {
    add(new Fault(fault));
  }

  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  synchronized List<Event> events() {
    return calls.stream().filter(c -> c instanceof Event).map(c -> (Event) c).toList();
  }

  synchronized List<EventPlaneFault> faults() {
    return calls.stream().filter(c -> c instanceof Fault).map(c -> ((Fault) c).fault()).toList();
  }

  synchronized long count(Predicate<Call> p) {
    return calls.stream().filter(p).count();
  }

  /** Waits until {@code condition} holds, failing with {@code what} after {@code timeout}. */
  void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (!condition.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; calls so far: "
              + calls.size() + ", last: " + (calls.isEmpty() ? "none" : calls.get(calls.size() - 1)));
        }
        TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
      }
    }
  }

  /** Waits until at least {@code n} events were delivered. */
  void awaitEvents(int n, Duration timeout) throws InterruptedException {
    await(n + " events", timeout, () -> count(c -> c instanceof Event) >= n);
  }
}
