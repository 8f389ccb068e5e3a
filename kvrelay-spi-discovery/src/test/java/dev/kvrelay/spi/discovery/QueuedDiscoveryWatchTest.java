package dev.kvrelay.spi.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared watch delivery: order, one thread, listener failures counted, and the close protocol. */
@Timeout(30)
class QueuedDiscoveryWatchTest {

  /** Not thread-safe beyond its base: a watch whose hooks are recorded. */
  static final class Probe extends QueuedDiscoveryWatch {
    final AtomicInteger closedCalls = new AtomicInteger();
    final List<String> failures = new CopyOnWriteArrayList<>();

    Probe() {
      super(DiscoveryScope.watchAll(), new RecordingListener(), "probe-watch");
    }

    void post(Consumer<DiscoveryListener> call) {
      submit(call);
    }

    @Override
    protected void listenerFailed(RuntimeException e) {
      failures.add(e.getMessage());
    }

    @Override
    protected void onClosed() {
      closedCalls.incrementAndGet();
    }
  }

  private static void await(CountDownLatch latch) throws InterruptedException {
    assertThat(latch.await(10, TimeUnit.SECONDS)).as("reached in time").isTrue();
  }

  @Test
  void callbacksRunInOrderOnTheWatchThread_andAThrowingOneIsCountedAndDropped() throws Exception {
    Probe w = new Probe();
    List<String> seen = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    for (int i = 0; i < 50; i++) {
      int n = i;
      w.post(l -> {
        seen.add(Thread.currentThread().getName() + ":" + n);
        if (n == 7) {
          throw new IllegalStateException("boom " + n);
        }
      });
    }
    w.post(l -> done.countDown());
    await(done);
    assertThat(seen).hasSize(50);
    for (int i = 0; i < 50; i++) {
      assertThat(seen.get(i)).isEqualTo("probe-watch:" + i);
    }
    assertThat(w.listenerFailures()).isEqualTo(1);
    assertThat(w.failures).containsExactly("boom 7");
    w.close();
  }

  @Test
  void closeFromAnotherThreadWaitsForTheRunningCallback_andNothingStartsAfterIt() throws Exception {
    Probe w = new Probe();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger finished = new AtomicInteger();
    AtomicInteger later = new AtomicInteger();
    w.post(l -> {
      inside.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      finished.incrementAndGet();
    });
    // Posted before close: it may run before the closer takes the delivery lock (the lock is not fair), but
    // never after close returned.
    java.util.concurrent.atomic.AtomicBoolean closeReturned = new java.util.concurrent.atomic.AtomicBoolean();
    w.post(l -> {
      if (closeReturned.get()) {
        later.incrementAndGet();
      }
    });
    await(inside);
    Thread closer = new Thread(() -> {
      w.close();
      closeReturned.set(true);
    });
    closer.start();
    // the closer must block while the callback runs
    closer.join(200);
    assertThat(closer.isAlive()).as("close waits for the running callback").isTrue();
    release.countDown();
    closer.join(10_000);
    assertThat(closer.isAlive()).isFalse();
    assertThat(finished.get()).isEqualTo(1);
    assertThat(w.isOpen()).isFalse();
    w.post(l -> later.incrementAndGet());
    w.close(); // idempotent
    assertThat(w.closedCalls.get()).as("onClosed runs once").isEqualTo(1);
    assertThat(later.get()).as("nothing starts after close returned").isZero();
  }

  @Test
  void closeFromInsideACallbackReturnsAndStopsLaterCallbacks() throws Exception {
    Probe w = new Probe();
    CountDownLatch closed = new CountDownLatch(1);
    AtomicInteger later = new AtomicInteger();
    w.post(l -> {
      w.close();
      closed.countDown();
    });
    w.post(l -> later.incrementAndGet());
    await(closed);
    assertThat(w.isOpen()).isFalse();
    assertThat(w.closedCalls.get()).isEqualTo(1);
    assertThat(later.get()).isZero();
  }
}
