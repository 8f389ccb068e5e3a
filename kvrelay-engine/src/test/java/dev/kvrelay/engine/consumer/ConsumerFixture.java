package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.consumer.TransposedCkfTable;
import dev.kvrelay.engine.actor.ManualScheduler;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.List;

/** Not thread-safe: confined to the test thread. A {@link RelayConsumer} over {@link FakeRelay}s and a manual scheduler. */
final class ConsumerFixture {
  static final long BACKOFF_INITIAL = 1_000_000L; // 1 ms
  static final long BACKOFF_MAX = 8_000_000L; // 8 ms
  static final long MAX_AGE_US = 10_000_000L; // 10 s: no staleness within a test unless wanted

  final ManualScheduler scheduler = new ManualScheduler();
  final List<FakeRelay> relays;
  final RelayConsumer consumer;

  ConsumerFixture(int sources) {
    this(sources, MAX_AGE_US);
  }

  ConsumerFixture(int sources, long maxAgeUs) {
    RelayConsumer.Builder b = RelayConsumer.builder()
        .consumerInstance(GlobalViewTest.CONSUMER)
        .domain(GlobalViewTest.DOMAIN)
        .format(GlobalViewTest.FORMAT)
        .semantics(GlobalViewTest.STD4)
        .maxAgeUs(maxAgeUs)
        .subscriberIdBase("router-1")
        .scheduler(scheduler)
        .clocks(scheduler::now, scheduler::epochMicros)
        .backoff(new BackoffPolicy(BACKOFF_INITIAL, BACKOFF_MAX, false))
        .randomSeed(7);
    FakeRelay[] r = new FakeRelay[sources];
    for (int i = 0; i < sources; i++) {
      r[i] = new FakeRelay(new RelayIdentity(100 + i, 1));
      b.source(name(i), r[i]);
    }
    relays = List.of(r);
    consumer = b.build();
  }

  static String name(int i) {
    return "dc-" + i;
  }

  static KvPoolDescriptor pool(long dc, long incarnation) {
    return GlobalViewTest.descriptor(GlobalViewTest.producer(GlobalViewTest.DOMAIN, dc, incarnation,
        GlobalViewTest.FORMAT), GlobalViewTest.STD4, List.of(GlobalViewTest.LLAMA));
  }

  FakeRelay relay(int i) {
    return relays.get(i);
  }

  void start() {
    consumer.start();
    scheduler.runReady();
  }

  void run() {
    scheduler.runReady();
  }

  /** Lets every backoff expire and every task run. */
  void quiesce() {
    for (int i = 0; i < 8; i++) {
      scheduler.advance(BACKOFF_MAX * 2);
    }
  }

  GlobalView view() {
    return consumer.globalView();
  }

  ReplicaStatus status(KvPoolId pool) {
    return consumer.replicaStates().stream().filter(s -> s.pool().equals(pool)).findFirst()
        .orElseThrow(() -> new AssertionError("no replica for " + pool));
  }

  long[] laneWords(int lane) {
    TransposedCkfTable table = view().indexer().table();
    long[] out = new long[GlobalViewTest.FORMAT.bucketCount()];
    for (int i = 0; i < out.length; i++) {
      out[i] = table.load(i, lane);
    }
    return out;
  }

  /** Asserts that {@code producer}'s replica is live and its lane holds exactly the producer's words. */
  void assertMirrors(ProducerIdentity producer, FakeRelay relay) {
    ReplicaStatus s = status(producer.poolId());
    assertThat(s.producer()).isEqualTo(producer);
    assertThat(s.state()).as("%s", s).isEqualTo(ReplicaState.LIVE);
    assertThat(view().laneOf(producer.poolId())).isEqualTo(s.lane());
    assertThat(laneWords(s.lane())).isEqualTo(relay.hub(producer).words());
  }
}
