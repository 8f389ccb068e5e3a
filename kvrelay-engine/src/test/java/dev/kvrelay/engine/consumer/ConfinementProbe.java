package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.WireSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (atomics): a detector of overlapping calls from the consumer into its sources. Every source call and
 * every stream poll of the {@link #wrap wrapped} sources enters the probe; the first {@code holds} calls stay in
 * it up to {@code holdNanos} unless another call enters meanwhile, so a consumer whose tasks can run at once is
 * caught in the act rather than by luck. {@link #maxActive()} is the most calls seen inside at once.
 */
final class ConfinementProbe {
  private final AtomicInteger active = new AtomicInteger();
  private final AtomicInteger maxActive = new AtomicInteger();
  private final AtomicInteger holdsLeft;
  private final long holdNanos;

  ConfinementProbe(int holds, long holdNanos) {
    this.holdsLeft = new AtomicInteger(holds);
    this.holdNanos = holdNanos;
  }

  int maxActive() {
    return maxActive.get();
  }

  private void enter() {
    int now = active.incrementAndGet();
    maxActive.accumulateAndGet(now, Math::max);
    if (now == 1 && holdsLeft.getAndDecrement() > 0) {
      long deadline = System.nanoTime() + holdNanos;
      while (maxActive.get() == 1 && System.nanoTime() < deadline) {
        LockSupport.parkNanos(100_000L);
      }
    }
  }

  private void exit() {
    active.decrementAndGet();
  }

  /** A call from the consumer into a source or stream. */
  @FunctionalInterface
  private interface Call<T, E extends Exception> {
    T call() throws E;
  }

  private <T, E extends Exception> T probed(Call<T, E> call) throws E {
    enter();
    try {
      return call.call();
    } finally {
      exit();
    }
  }

  WireSource wrap(WireSource source) {
    return new WireSource() {
      @Override
      public RelayStream<CatalogUpdate> watchCatalog(String subscriberId) throws RelayException {
        return probed(() -> stream(source.watchCatalog(subscriberId)));
      }

      @Override
      public CompletableFuture<RelayStream<PoolFrame>> subscribePool(KvPoolId pool, ProducerIdentity expected,
          String subscriberId) {
        return probed(() -> source.subscribePool(pool, expected, subscriberId).thenApply(s -> stream(s)));
      }

      @Override
      public RelayStream<TopologySnapshot> watchReadiness(String subscriberId) throws RelayException {
        return probed(() -> stream(source.watchReadiness(subscriberId)));
      }

      @Override
      public RelayStream<KvPoolLoadUpdate> watchPoolLoad(String subscriberId) throws RelayException {
        return probed(() -> stream(source.watchPoolLoad(subscriberId)));
      }

      @Override
      public RelayStream<ServingLoadUpdate> watchServingLoad(String subscriberId) throws RelayException {
        return probed(() -> stream(source.watchServingLoad(subscriberId)));
      }
    };
  }

  private <T> RelayStream<T> stream(RelayStream<T> s) {
    return new RelayStream<>() {
      @Override
      public @Nullable T poll() throws RelayException {
        return probed(() -> s.poll());
      }

      @Override
      public @Nullable T poll(long timeout, TimeUnit unit) throws RelayException {
        return poll(); // the consumer never waits on a stream: a timed poll is an immediate one here
      }

      @Override
      public void onAvailable(Runnable callback) {
        s.onAvailable(callback);
      }

      @Override
      public boolean isFinished() {
        return s.isFinished();
      }

      @Override
      public void close() {
        s.close();
      }
    };
  }
}
