package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Random catalog churn and frames across 3 sources: after quiescence, every listed pool has a live replica whose
 * lane words equal its producer's words, and no unlisted pool holds a lane.
 */
class RelayConsumerProperties {
  static final int SOURCES = 3;
  static final int OPS = 8;

  @Test
  void afterQuiescenceEveryReplicaMirrorsItsProducer() {
    qt().withExamples(60).forAll(lists().of(integers().between(0, SOURCES * OPS - 1)).ofSizeBetween(0, 40))
        .checkAssert(RelayConsumerProperties::run);
  }

  private static void run(List<Integer> ops) {
    ConsumerFixture f = new ConsumerFixture(SOURCES);
    long[] incarnation = {7, 7, 7};
    boolean[] listed = {true, true, true};
    long nextHash = 1;
    for (int s = 0; s < SOURCES; s++) {
      f.relay(s).publishCatalog(List.of(pool(s, incarnation[s])));
    }
    f.start();
    for (int op : ops) {
      int s = op % SOURCES;
      FakeRelay relay = f.relay(s);
      KvPoolDescriptor d = pool(s, incarnation[s]);
      switch (op / SOURCES) {
        case 0, 1 -> { // blocks stored and published
          long[] hashes = new long[1 + (int) (nextHash % 4)];
          for (int i = 0; i < hashes.length; i++) {
            hashes[i] = nextHash++ * 0x9E37_79B9_7F4A_7C15L;
          }
          relay.hub(d.producer()).store(hashes, nextHash % 3 == 0);
          relay.hub(d.producer()).publish();
        }
        case 2 -> { // the pool leaves or rejoins the catalog
          listed[s] = !listed[s];
          relay.publishCatalog(listed[s] ? List.of(d) : List.of());
        }
        case 3 -> { // a new producer incarnation
          incarnation[s]++;
          relay.publishCatalog(listed[s] ? List.of(pool(s, incarnation[s])) : List.of());
        }
        case 4 -> { // the pool stream fails
          for (QueueStream<PoolFrame> q : relay.hub(d.producer()).liveStreams()) {
            q.fail(new RelayException(RelayErrorReason.SUBSCRIBER_LAGGED, "lag"));
          }
        }
        case 5 -> relay.hub(d.producer()).heartbeat();
        case 6 -> relay.lastCatalogStream().fail(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "x"));
        default -> f.scheduler.advance(ConsumerFixture.BACKOFF_INITIAL);
      }
      if (op % 2 == 0) {
        f.run();
      }
    }
    f.quiesce();
    int expectedPools = 0;
    for (int s = 0; s < SOURCES; s++) {
      KvPoolDescriptor d = pool(s, incarnation[s]);
      if (listed[s]) {
        expectedPools++;
        f.assertMirrors(d.producer(), f.relay(s));
      } else {
        assertThat(f.view().laneOf(d.poolId())).isEqualTo(-1);
      }
    }
    assertThat(f.view().poolCount()).isEqualTo(expectedPools);
    assertThat(f.consumer.replicaStates()).hasSize(expectedPools);
  }

  static KvPoolDescriptor pool(int source, long incarnation) {
    return ConsumerFixture.pool(41 + source, incarnation);
  }
}
