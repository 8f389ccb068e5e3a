package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The load ticker's publisher failing (wan-grpc.md §4.1 "A publisher error stops the transport and cancels the whole
 * Relay", §9 C33): windows start at 1, an error at window 3 stops the ticker with current = 2 and terminates the
 * engine; an error after close (the root cancel) is swallowed. Real control thread with a 10 ms load window; every
 * wait has a deadline.
 */
@Timeout(30)
class LoadPublisherFailureTest {
  private static final long WINDOW_MS = 10;
  private final InMemoryDiscovery discovery = new InMemoryDiscovery();
  private final InMemoryEventPlane plane = InMemoryEventPlane.create();
  private final List<RelayEngine> engines = new ArrayList<>();

  @AfterEach
  void tearDown() {
    engines.forEach(RelayEngine::close);
    plane.close();
    discovery.close();
  }

  private RelayEngine.Builder builder() throws RelayConfigException {
    return RelayEngine.builder()
        .config(RelayEngineConfig.builder().dcId("dc-a").watchAll(true).expectedUniqueBlocks(4096)
            .bind("127.0.0.1:0").loadWindowMs(WINDOW_MS).build())
        .discovery(discovery).eventPlane(plane).poolThreads(1);
  }

  private RelayEngine start(RelayEngine.Builder b) throws RelayEngineException {
    RelayEngine e = b.build();
    engines.add(e);
    return e;
  }

  /** Thread-safe: records every window the ticker hands over, throws at pool-load window {@code failAt}. */
  private static final class Recorder implements UnaryOperator<LoadPublisher> {
    final long failAt;
    final List<Long> poolAttempts = new CopyOnWriteArrayList<>();
    final List<Long> servingPublished = new CopyOnWriteArrayList<>();

    Recorder(long failAt) {
      this.failAt = failAt;
    }

    @Override
    public LoadPublisher apply(LoadPublisher own) {
      return new LoadPublisher() {
        @Override
        public void poolLoad(KvPoolLoadUpdate window) {
          poolAttempts.add(window.windowSequence());
          if (window.windowSequence() == failAt) {
            throw new IllegalStateException("sink refused window " + window.windowSequence());
          }
          own.poolLoad(window);
        }

        @Override
        public void servingLoad(ServingLoadUpdate window) {
          servingPublished.add(window.windowSequence());
          own.servingLoad(window);
        }
      };
    }
  }

  private static Throwable awaitFailure(CompletableFuture<Void> terminated) throws Exception {
    try {
      terminated.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("terminated() completed normally; expected a load publisher failure");
  }

  /** Drains what {@code s} holds now; stops at the first null poll. */
  private static List<Long> drain(RelayStream<KvPoolLoadUpdate> s) throws RelayException {
    List<Long> out = new ArrayList<>();
    KvPoolLoadUpdate u;
    while ((u = s.poll()) != null) {
      out.add(u.windowSequence());
    }
    return out;
  }

  @Test
  void c33_windowsStartAt1AndAnErrorAtWindow3StopsTheTickerWithCurrent2AndTerminatesTheEngine() throws Exception {
    Recorder recorder = new Recorder(3);
    RelayEngine engine = start(builder().loadPublisher(recorder));
    RelayStream<KvPoolLoadUpdate> watcher = engine.watchPoolLoad("watcher");

    Throwable cause = awaitFailure(engine.terminated());
    assertThat(cause).hasMessageContaining("load publisher").hasRootCauseMessage("sink refused window 3");

    // Ten more windows' time: a ticker that kept going would offer window 4 (and publish serving window 3).
    Thread.sleep(10 * WINDOW_MS);
    assertThat(recorder.poolAttempts).as("windows start at 1; nothing after the failed 3").containsExactly(1L, 2L, 3L);
    assertThat(recorder.servingPublished).as("the failed tick publishes no serving-load window").containsExactly(1L, 2L);

    List<Long> seen = drain(watcher);
    assertThat(seen).as("a watcher never sees window 3 or later").isNotEmpty().allMatch(w -> w <= 2);
    assertThat(seen.get(seen.size() - 1)).as("the watcher's latest is 2").isEqualTo(2L);
    assertThat(watcher.isFinished()).as("the broadcast stays open until the supervisor closes the relay").isFalse();
    try (RelayStream<KvPoolLoadUpdate> late = engine.watchPoolLoad("late")) {
      assertThat(late.poll()).as("a new subscriber's current window").extracting(KvPoolLoadUpdate::windowSequence)
          .isEqualTo(2L);
    }
    try (RelayStream<ServingLoadUpdate> serving = engine.watchServingLoad("serving")) {
      assertThat(serving.poll()).extracting(ServingLoadUpdate::windowSequence).isEqualTo(2L);
    }

    assertThat(engine.stats().loadPublishErrors()).as("the failure is counted").isEqualTo(1);
    engine.close();
    assertThat(engine.terminated()).as("close after the failure keeps the failure").isCompletedExceptionally();
    assertThatThrownBy(() -> drain(watcher)).isInstanceOfSatisfying(RelayException.class,
        e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE));
  }

  @Test
  void c33_aPublisherErrorAfterCloseIsSwallowedAndTerminatedCompletesNormally() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean threw = new AtomicBoolean();
    List<Long> attempts = new CopyOnWriteArrayList<>();
    RelayEngine engine = start(builder().loadPublisher(own -> new LoadPublisher() {
      @Override
      public void poolLoad(KvPoolLoadUpdate window) {
        attempts.add(window.windowSequence());
        if (window.windowSequence() == 2) {
          entered.countDown();
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          threw.set(true);
          throw new IllegalStateException("load sink closed by the cancel");
        }
        own.poolLoad(window);
      }

      @Override
      public void servingLoad(ServingLoadUpdate window) {
        own.servingLoad(window);
      }
    }));
    RelayStream<KvPoolLoadUpdate> watcher = engine.watchPoolLoad("watcher");
    assertThat(entered.await(10, TimeUnit.SECONDS)).as("the ticker reached window 2").isTrue();

    // The root cancel begins while window 2 is being published; the publisher then fails.
    CompletableFuture<Void> closing = CompletableFuture.runAsync(engine::close);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!engine.closing()) {
      assertThat(System.nanoTime()).as("close() began in time").isLessThan(deadline);
      Thread.sleep(1);
    }
    release.countDown();
    closing.get(20, TimeUnit.SECONDS);

    assertThat(threw).as("the publisher did fail after the cancel").isTrue();
    assertThat(engine.terminated()).as("an error after cancel is swallowed").isCompletedWithValue(null);
    assertThat(attempts).containsExactly(1L, 2L);
    List<Long> seen = new ArrayList<>();
    assertThatThrownBy(() -> {
      KvPoolLoadUpdate u;
      while ((u = watcher.poll()) != null) {
        seen.add(u.windowSequence());
      }
    }).isInstanceOfSatisfying(RelayException.class,
        e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE));
    assertThat(seen).allMatch(w -> w <= 1);
  }

  @Test
  void c45_engineFaultsBuildsAnEngineWhoseLoadPublisherFailsAtTheGivenWindow() throws Exception {
    RelayEngine engine = start(EngineFaults.failLoadPublisherAt(builder(), 2));
    Throwable cause = awaitFailure(engine.terminated());
    assertThat(cause).hasMessageContaining("load publisher").hasRootCauseMessage("injected load publisher failure at window 2");
    Thread.sleep(5 * WINDOW_MS);
    try (RelayStream<KvPoolLoadUpdate> late = engine.watchPoolLoad("late")) {
      assertThat(late.poll()).as("current stays at the last good window").extracting(KvPoolLoadUpdate::windowSequence)
          .isEqualTo(1L);
    }
  }
}
