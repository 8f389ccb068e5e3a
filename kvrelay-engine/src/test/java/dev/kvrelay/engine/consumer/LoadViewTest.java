package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadViewTest {
  static final KvPoolDescriptor A = GlobalViewTest.descriptor(41);
  static final KvPoolDescriptor B = GlobalViewTest.descriptor(42);

  static CatalogView catalog(KvPoolDescriptor... pools) {
    CatalogView c = new CatalogView();
    assertThat(c.apply(CatalogUpdate.ofDescriptors(GlobalViewTest.RELAY, 1, List.of(pools)), 0))
        .isInstanceOf(CatalogResult.Applied.class);
    return c;
  }

  static KvPoolLoadEntry entry(ProducerIdentity p, long used, long total, long observed, long expected) {
    return new KvPoolLoadEntry(p, used, total, observed, expected);
  }

  static KvPoolLoadUpdate window(long seq, KvPoolLoadEntry... entries) {
    return new KvPoolLoadUpdate(seq, 1_000, 1_000, List.of(entries));
  }

  @Test
  void windowSequenceMustIncreaseStrictlyWithinAStream() throws Exception {
    LoadView view = new LoadView();
    CatalogView c = catalog(A);
    view.apply(window(0, entry(A.producer(), 5, 10, 1, 1)), c, 100);
    view.apply(window(3), c, 200);
    for (long bad : new long[] {3, 2, 0}) {
      assertThatThrownBy(() -> view.apply(window(bad, entry(A.producer(), 1, 10, 1, 1)), c, 300))
          .isInstanceOfSatisfying(StreamOrderException.class,
              e -> assertThat(e.reason()).isEqualTo(StreamOrderException.Reason.WINDOW_NOT_INCREASING));
    }
    assertThat(view.snapshot().windowSequence()).isEqualTo(3);
    assertThat(view.snapshot().receivedUs()).isEqualTo(200);
    assertThat(view.snapshot().pools()).isEmpty(); // window 3 (empty) replaced window 0
    // unsigned: 2^63 is larger than 3
    view.apply(window(Long.MIN_VALUE), c, 400);
    assertThat(view.snapshot().windowSequence()).isEqualTo(Long.MIN_VALUE);
    // reopened stream: reset accepts any first window
    view.reset();
    assertThat(view.snapshot().hasWindow()).isFalse();
    view.apply(window(0), c, 500);
    assertThat(view.snapshot().hasWindow()).isTrue();
  }

  @Test
  void authoritativeOnlyIfObservedEqualsExpectedPositiveAndTotalPositive() throws Exception {
    // {used, total, observed, expected, authoritative}
    long[][] cases = {
        {7, 100, 2, 2, 1},
        {0, 100, 2, 2, 1}, // zero load, but complete coverage: authoritative zero
        {0, 0, 0, 0, 0}, // nothing known: 0 is not zero load
        {7, 100, 1, 2, 0}, // partial coverage
        {7, 0, 2, 2, 0}, // unknown capacity
        {7, 100, 0, 0, 0}, // no declared ranks
        {-1, -1, 4_294_967_295L, 4_294_967_295L, 1}, // saturated u64 sums and u32 ranks
    };
    for (long[] k : cases) {
      LoadView view = new LoadView();
      LoadSnapshot s = view.apply(window(1, entry(A.producer(), k[0], k[1], k[2], k[3])), catalog(A), 10);
      PoolLoad load = s.pool(A.poolId()).orElseThrow();
      assertThat(load.authoritative()).as("case used=%d total=%d obs=%d exp=%d", k[0], k[1], k[2], k[3])
          .isEqualTo(k[4] == 1);
      if (k[4] == 1) {
        assertThat(load.usedBlocks()).hasValue(k[0]);
        assertThat(load.totalBlocks()).hasValue(k[1]);
      } else {
        assertThat(load.usedBlocks()).isEmpty();
      }
    }
  }

  @Test
  void entriesJoinTheCatalogByProducerKeyNotByPoolId() throws Exception {
    ProducerIdentity oldA = GlobalViewTest.producer(GlobalViewTest.DOMAIN, 41, 6, GlobalViewTest.FORMAT);
    ProducerIdentity c = GlobalViewTest.producer(GlobalViewTest.DOMAIN, 43, 7, GlobalViewTest.FORMAT);
    assertThat(oldA.poolId()).isEqualTo(A.poolId());
    LoadView view = new LoadView();
    CatalogView catalog = catalog(A, B);
    LoadSnapshot s = view.apply(window(1, entry(oldA, 1, 10, 1, 1), entry(B.producer(), 2, 10, 1, 1),
        entry(c, 3, 10, 1, 1)), catalog, 10);
    assertThat(s.pools().keySet()).containsExactly(B.poolId());
    assertThat(s.pool(A.poolId())).isEmpty(); // same pool id, older incarnation: not joined
    assertThat(s.unjoined()).extracting(KvPoolLoadEntry::producer).containsExactlyInAnyOrder(oldA, c);
    // the catalog moves to the old incarnation's key: a rejoin reads it
    CatalogView moved = new CatalogView();
    moved.apply(CatalogUpdate.ofDescriptors(GlobalViewTest.RELAY, 1, List.of(new KvPoolDescriptor(oldA,
        A.servingEndpoint(), A.registrations(), A.querySemantics(), A.poolRoles()))), 0);
    LoadSnapshot rejoined = view.rejoin(moved);
    assertThat(rejoined.pool(A.poolId()).orElseThrow().entry().producer()).isEqualTo(oldA);
    assertThat(rejoined.pool(B.poolId())).isEmpty();
  }

  @Test
  void aPoolListedTwiceInOneWindowIsNeverRead() throws Exception {
    LoadView view = new LoadView();
    LoadSnapshot s = view.apply(window(1, entry(A.producer(), 1, 10, 1, 1), entry(A.producer(), 2, 10, 1, 1)),
        catalog(A), 10);
    assertThat(s.pool(A.poolId())).isEmpty();
    assertThat(s.ambiguous()).containsExactly(A.poolId());
  }

  @Test
  void freshnessIsTheLocalReceiveTime() throws Exception {
    LoadView view = new LoadView();
    LoadSnapshot s = view.apply(new KvPoolLoadUpdate(1, 999_999_999, 1_000, List.of()), catalog(A), 5_000);
    assertThat(s.isFresh(5_000 + 3_000, 3_000)).isTrue();
    assertThat(s.isFresh(5_000 + 3_001, 3_000)).isFalse();
    assertThat(LoadSnapshot.EMPTY.isFresh(0, 3_000)).isFalse();
  }
}
