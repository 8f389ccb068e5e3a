package dev.kvrelay.engine.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.engine.WireReplica;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Random interleavings of actor publications (a real CkfProducer fed random Stored/Removed events, drained at
 * random points) with subscribers opening, polling, closing and time passing.
 */
class HubProperties {

  private static final class Sub {
    final RelayStream<PoolFrame> stream;
    final WireReplica replica;
    final long expectedSnapshot;
    boolean closed;
    RelayErrorReason ended;

    Sub(RelayStream<PoolFrame> stream, WireReplica replica, long expectedSnapshot) {
      this.stream = stream;
      this.replica = replica;
      this.expectedSnapshot = expectedSnapshot;
    }

    void poll(int max) throws Exception {
      if (closed || ended != null) {
        return;
      }
      for (int i = 0; i < max; i++) {
        PoolFrame f;
        try {
          f = stream.poll();
        } catch (RelayException e) {
          ended = e.reason();
          return;
        }
        if (f == null) {
          return;
        }
        replica.apply(f);
        if (f.kind() == PoolFrame.Kind.SNAPSHOT_CHUNK && replica.installed) {
          assertThat(replica.snapshotSequence).as("stream starts at its snapshot").isEqualTo(expectedSnapshot);
        }
      }
    }
  }

  @Test
  void everyLiveStreamConvergesToTheProducerWithContiguousWireSequences() {
    qt().withExamples(150).forAll(
            lists().of(integers().between(0, 9_999)).ofSizeBetween(1, 160),
            integers().between(1, 2),
            integers().between(2, 6))
        .checkAssert((ops, encoders, capacity) -> {
          try {
            run(ops, encoders, capacity);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
  }

  private static void run(List<Integer> ops, int encoders, int capacity) throws Exception {
    HubFixture fx = new HubFixture(new HubSettings(capacity, 16_777_216L, 100, 500, 64, 4, encoders));
    HubFixture.Pool a = fx.pool(41);
    List<Sub> subs = new ArrayList<>();
    List<Long> stored = new ArrayList<>();
    long wireSeq = 0; // deltas published on the hub's lease
    boolean leased = false;
    long nextHash = 1;
    for (int op : ops) {
      int kind = op % 8;
      int arg = op / 8;
      switch (kind) {
        case 0, 1 -> {
          var b = new dev.kvrelay.ckf.producer.StoredBatch().reset(1 + arg % 2, 0);
          for (int i = 0; i < 1 + arg % 4; i++) {
            long h = nextHash++;
            stored.add(h);
            b.addBlock(h, h * 0x9E3779B97F4A7C15L);
          }
          a.producer.stored(b);
        }
        case 2 -> {
          if (!stored.isEmpty()) {
            long h = stored.remove(arg % stored.size());
            a.producer.removed(1, 0, new long[] {h});
            a.producer.removed(2, 0, new long[] {h});
          }
        }
        case 3 -> {
          CkfPublication p = a.publish();
          if (leased && (p instanceof CkfDelta || p instanceof CkfSnapshot)) {
            wireSeq++;
            if (p instanceof CkfSnapshot) {
              for (Sub s : subs) {
                s.poll(Integer.MAX_VALUE);
                if (!s.closed) {
                  assertThat(s.ended).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
                }
              }
            }
          }
        }
        case 4 -> {
          CompletableFuture<RelayStream<PoolFrame>> f =
              fx.registry.subscribe(a.identity.poolId(), a.identity, "s" + subs.size());
          if (!leased) {
            // the barrier drains the pending tail on no lease: nothing is published
            leased = true;
          }
          assertThat(f).isDone();
          subs.add(new Sub(f.get(), new WireReplica(a.identity).expectRelay(HubFixture.RELAY), wireSeq));
        }
        case 5 -> {
          if (!subs.isEmpty()) {
            subs.get(arg % subs.size()).poll(1 + arg % 5);
          }
        }
        case 6 -> {
          if (!subs.isEmpty()) {
            Sub s = subs.get(arg % subs.size());
            s.stream.close();
            s.closed = true;
          }
        }
        default -> fx.timers.advanceMs(1 + arg % 150);
      }
    }
    CkfPublication last = a.publish();
    if (leased && (last instanceof CkfDelta || last instanceof CkfSnapshot)) {
      wireSeq++;
    }
    assertThat(fx.faults).isEmpty();
    long[] words = a.words();
    for (Sub s : subs) {
      s.poll(Integer.MAX_VALUE);
      if (s.closed) {
        continue;
      }
      if (s.ended != null) {
        assertThat(s.ended).isIn(RelayErrorReason.SUBSCRIBER_LAGGED, RelayErrorReason.SNAPSHOT_PROGRESS_TIMEOUT,
            RelayErrorReason.PUBLICATION_UNAVAILABLE);
        continue;
      }
      assertThat(s.replica.installed).as("bootstrap completed").isTrue();
      assertThat(s.replica.sequence).isEqualTo(wireSeq);
      HubFixture.assertSameWords(s.replica.words, words);
    }
    long open = subs.stream().filter(s -> !s.closed && s.ended == null).count();
    assertThat(a.slot.subscriberCount()).isEqualTo((int) open);
    assertThat(fx.registry.stats().openStreams()).isEqualTo(open);
    for (Sub s : subs) {
      s.stream.close();
    }
    assertThat(fx.registry.permits().available()).isEqualTo(encoders);
    assertThat(a.slot.pinned()).isFalse();
    assertThat(fx.registry.stats().openStreams()).isZero();
  }
}
