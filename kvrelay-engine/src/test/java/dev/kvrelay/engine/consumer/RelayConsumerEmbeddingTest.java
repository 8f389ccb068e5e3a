package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Not thread-safe: confined to the test thread. What an embedder meets first: model aliases resolve, answers name
 * each DC the way its source was named, and the consumer's threads are the caller's or stop on close.
 */
class RelayConsumerEmbeddingTest {
  /** dc 41 registers llama with the alias "chat"; dc 42 registers llama without aliases. */
  static final KvPoolDescriptor WITH_ALIAS = GlobalViewTest.descriptor(
      GlobalViewTest.producer(GlobalViewTest.DOMAIN, 41, 7, GlobalViewTest.FORMAT), GlobalViewTest.STD4,
      List.of(new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of("chat"))));
  static final KvPoolDescriptor PLAIN = ConsumerFixture.pool(42, 7);

  private static ConsumerFixture twoDcs() {
    ConsumerFixture f = new ConsumerFixture(2);
    f.relay(0).publishCatalog(List.of(WITH_ALIAS));
    f.relay(0).hub(WITH_ALIAS.producer()).store(Arrays.copyOf(RelayConsumerTest.BLOCKS, 5), true);
    f.relay(1).publishCatalog(List.of(PLAIN));
    f.relay(1).hub(PLAIN.producer()).store(Arrays.copyOf(RelayConsumerTest.BLOCKS, 9), true);
    f.start();
    return f;
  }

  @Test
  void anAliasResolvesToTheRegistrationListingItAndIsSaltedByItsTarget() {
    ConsumerFixture f = twoDcs();
    GlobalViewAnswer byAlias = f.consumer.query(RelayConsumerTest.REQUEST, "chat");
    assertThat(byAlias.status()).isEqualTo(GlobalViewAnswer.Status.ANSWERED);
    assertThat(byAlias.matches()).extracting(GlobalViewMatch::pool).containsExactly(WITH_ALIAS.poolId());
    GlobalViewAnswer byId = f.consumer.query(RelayConsumerTest.REQUEST, "llama");
    assertThat(byAlias.matches().get(0).depthBlocks()).as("the alias hashes like its canonical target")
        .isEqualTo(RelayConsumerTest.depth(byId, WITH_ALIAS)).isEqualTo(5);
    assertThat(f.consumer.query(RelayConsumerTest.REQUEST, "mistral").status())
        .isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);
    assertThat(f.view().query(RelayConsumerTest.REQUEST, "chat", 0).status())
        .as("the view's canonical-id query is unchanged: an alias is not a canonical id")
        .isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);
  }

  @Test
  void answersNameEachDcTheWayItsSourceWasNamed() {
    ConsumerFixture f = twoDcs();
    GlobalViewAnswer a = f.consumer.query(RelayConsumerTest.REQUEST, "llama");
    assertThat(a.bySource()).containsOnlyKeys(ConsumerFixture.name(0), ConsumerFixture.name(1));
    assertThat(a.match(ConsumerFixture.name(0))).get().extracting(GlobalViewMatch::pool)
        .isEqualTo(WITH_ALIAS.poolId());
    assertThat(a.match(ConsumerFixture.name(1))).get().extracting(GlobalViewMatch::depthBlocks).isEqualTo(9);
    assertThat(a.match("us-west")).isEmpty();
    assertThat(a.bySource().values()).containsExactlyInAnyOrderElementsOf(a.matches());
  }

  @Test
  void withoutAnExecutorTheConsumerRunsOnOneDaemonThreadItStopsOnClose() throws Exception {
    RelayConsumer consumer = builder("router-owned").source("dc-0", new FakeRelay(new RelayIdentity(100, 1))).build();
    consumer.start();
    await("the consumer thread started", () -> !threads("kvrelay-consumer-router-owned").isEmpty());
    assertThat(threads("kvrelay-consumer-router-owned")).allMatch(Thread::isDaemon);
    consumer.close();
    await("the consumer thread ended", () -> threads("kvrelay-consumer-router-owned").isEmpty());
    consumer.close(); // idempotent
  }

  @Test
  void aCallersExecutorRunsTheConsumerAndIsLeftRunningOnClose() throws Exception {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1);
    try {
      FakeRelay relay = new FakeRelay(new RelayIdentity(100, 1));
      RelayConsumer consumer = builder("router-shared").executor(executor).source("dc-0", relay).build();
      consumer.start();
      await("the start task ran on the caller's executor", () -> executor.getCompletedTaskCount() >= 1);
      consumer.close();
      await("the close task ran", () -> executor.getCompletedTaskCount() >= 2);
      assertThat(executor.isShutdown()).as("the caller owns its executor").isFalse();
      assertThat(threads("kvrelay-consumer-router-shared")).isEmpty();
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void onACallersFourThreadPoolTheConsumerStillCallsItsSourcesOneAtATime() throws Exception {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(4);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // the consumer's timers end with the pool
    FakeRelay west = new FakeRelay(new RelayIdentity(100, 1));
    west.publishCatalog(List.of(WITH_ALIAS));
    west.hub(WITH_ALIAS.producer()).store(Arrays.copyOf(RelayConsumerTest.BLOCKS, 5), true);
    FakeRelay east = new FakeRelay(new RelayIdentity(101, 1));
    east.publishCatalog(List.of(PLAIN));
    east.hub(PLAIN.producer()).store(Arrays.copyOf(RelayConsumerTest.BLOCKS, 9), true);
    // The first 6 calls wait up to 300 ms each for a second call to come in beside them.
    ConfinementProbe probe = new ConfinementProbe(6, TimeUnit.MILLISECONDS.toNanos(300));
    RelayConsumer consumer = builder("router-pool").executor(executor)
        .source("us-west", probe.wrap(west)).source("us-east", probe.wrap(east)).build();
    try {
      consumer.start();
      await("both DCs answer", () -> consumer.query(RelayConsumerTest.REQUEST, "llama").matches().size() == 2);
      assertThat(consumer.query(RelayConsumerTest.REQUEST, "llama").match("us-east")).get()
          .extracting(GlobalViewMatch::depthBlocks).isEqualTo(9);
      assertThat(probe.maxActive()).as("source calls and stream polls in progress at once").isEqualTo(1);
      assertThat(consumer.stats().drainFailures()).isZero();
    } finally {
      consumer.close();
      executor.shutdown();
      assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aSourceThatIsNeitherAnEngineNorAGrpcClientIsRefusedWhenAdded() {
    dev.kvrelay.engine.wan.RelaySource foreign = new dev.kvrelay.engine.wan.RelaySource() {};
    RelayConsumer.Builder b = builder("router-foreign");
    assertThatThrownBy(() -> b.source("dc-x", foreign)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use a RelayEngine, or a RelayGrpcClient");
    FakeRelay relay = new FakeRelay(new RelayIdentity(100, 1));
    assertThat(dev.kvrelay.engine.wire.WireSources.of(new FakeRelayHandle(relay))).isSameAs(relay);
    assertThatThrownBy(() -> dev.kvrelay.engine.wire.WireSources.register(FakeRelayHandle.class, h -> h.relay))
        .as("registered once, by the class itself").isInstanceOf(IllegalStateException.class);
    b.source("dc-0", new FakeRelayHandle(relay)); // a registered handle is accepted
  }

  /** Immutable: a handle whose wire is reached through the registry, as the engine's and the gRPC client's are. */
  static final class FakeRelayHandle implements dev.kvrelay.engine.wan.RelaySource {
    static {
      dev.kvrelay.engine.wire.WireSources.register(FakeRelayHandle.class, h -> h.relay);
    }

    final FakeRelay relay;

    FakeRelayHandle(FakeRelay relay) {
      this.relay = relay;
    }
  }

  @Test
  void anExecutorAndATestSchedulerAreExclusive() {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1);
    try {
      RelayConsumer.Builder b = builder("router-x").executor(executor);
      assertThatThrownBy(() -> b.scheduler(new dev.kvrelay.engine.actor.ManualScheduler()))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> b.executor(executor)).isInstanceOf(IllegalStateException.class);
    } finally {
      executor.shutdownNow();
    }
  }

  private static RelayConsumer.Builder builder(String base) {
    return RelayConsumer.builder().consumerInstance(GlobalViewTest.CONSUMER).domain(GlobalViewTest.DOMAIN)
        .format(GlobalViewTest.FORMAT).semantics(GlobalViewTest.STD4).maxAgeUs(ConsumerFixture.MAX_AGE_US)
        .subscriberIdBase(base).clocks(System::nanoTime, () -> System.currentTimeMillis() * 1_000);
  }

  private static Set<Thread> threads(String name) {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive())
        .collect(Collectors.toSet());
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("timed out waiting: %s", what).isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
