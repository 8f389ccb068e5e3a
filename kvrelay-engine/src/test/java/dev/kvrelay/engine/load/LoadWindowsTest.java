package dev.kvrelay.engine.load;

import static dev.kvrelay.engine.load.LoadFixtures.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LoadWindowsTest {

  private static PoolLoadSnapshot load(long used, long total, long observed, long expected) {
    return new PoolLoadSnapshot(used < 0 ? OptionalLong.empty() : OptionalLong.of(used),
        total < 0 ? OptionalLong.empty() : OptionalLong.of(total), observed, expected, expected,
        SchedulerLoad.UNAVAILABLE, 0);
  }

  @Test
  void startupWindowIsSequenceZeroThenEachWindowPlusOne() throws Exception {
    LoadWindows w = new LoadWindows(10);
    assertThat(w.current()).isEmpty();
    KvPoolLoadUpdate first = w.initial(100, List.of());
    assertThat(first.windowSequence()).isZero();
    assertThat(first.pools()).isEmpty(); // an empty list is a valid idle window
    assertThat(first.windowMs()).isEqualTo(10); // C18: window_ms echoes the config
    assertThat(first.observedMs()).isEqualTo(100);
    KvPoolLoadUpdate second = w.next(110, List.of());
    KvPoolLoadUpdate third = w.next(120, List.of());
    assertThat(second.windowSequence()).isEqualTo(1);
    assertThat(third.windowSequence()).isEqualTo(2);
    assertThat(third.observedMs()).isEqualTo(120);
    assertThat(w.current()).contains(third);
  }

  @Test
  void entriesAreSortedByPoolIdAndMapUnavailableValuesToZero() throws Exception {
    ProducerIdentity a = producer(1, 5);
    ProducerIdentity b = producer(1, 9);
    ProducerIdentity c = producer(3, 1);
    KvPoolLoadUpdate u = new LoadWindows(1000).initial(1, List.of(
        new PoolLoadReport(c, load(-1, -1, 1, 2)),
        new PoolLoadReport(b, load(4, 8, 1, 1)),
        new PoolLoadReport(a, load(-1, 50, 0, 3))));
    assertThat(u.pools()).extracting(KvPoolLoadEntry::producer).containsExactly(a, b, c);
    assertThat(u.pools().get(0).kvUsedBlocks()).isZero();
    assertThat(u.pools().get(0).totalKvBlocks()).isEqualTo(50);
    assertThat(u.pools().get(0).kvExpectedRanks()).isEqualTo(3);
    assertThat(u.pools().get(1).kvUsedBlocks()).isEqualTo(4);
    assertThat(u.pools().get(2).totalKvBlocks()).isZero();
    assertThat(u.pools().get(2).kvObservedRanks()).isEqualTo(1);
  }

  @Test
  void ranksSaturateToU32() {
    KvPoolLoadEntry e = new PoolLoadReport(producer(1, 1), load(-1, -1, 4_294_967_296L, 5_000_000_000L)).toEntry();
    assertThat(e.kvObservedRanks()).isEqualTo(4_294_967_295L);
    assertThat(e.kvExpectedRanks()).isEqualTo(4_294_967_295L);
    KvPoolLoadEntry f = new PoolLoadReport(producer(1, 1), load(-1, -1, 4_294_967_295L, 7)).toEntry();
    assertThat(f.kvObservedRanks()).isEqualTo(4_294_967_295L);
    assertThat(f.kvExpectedRanks()).isEqualTo(7);
  }

  @Test
  void windowMsIsCarriedAsUnsigned64() throws Exception {
    assertThat(new LoadWindows(-1L).initial(0, List.of()).windowMs()).isEqualTo(-1L);
  }

  @Test
  void duplicatePoolIsATypedErrorAndChangesNothing() throws Exception {
    LoadWindows w = new LoadWindows(1000);
    KvPoolLoadUpdate first = w.initial(1, List.of());
    ProducerIdentity p = producer(1, 1);
    ProducerIdentity samePoolNewGeneration =
        new ProducerIdentity(p.poolId(), p.producerIncarnation(), p.layoutGeneration() + 1, p.ckfFormat());
    List<PoolLoadReport> dup = List.of(new PoolLoadReport(p, PoolLoadSnapshot.EMPTY),
        new PoolLoadReport(samePoolNewGeneration, PoolLoadSnapshot.EMPTY));
    assertThatThrownBy(() -> w.next(2, dup)).isInstanceOfSatisfying(LoadWindowException.class,
        e -> assertThat(e.reason()).isEqualTo(LoadWindowException.Reason.DUPLICATE_POOL));
    assertThat(w.current()).contains(first);
    assertThat(w.next(3, List.of()).windowSequence()).isEqualTo(1);
  }

  @Test
  void nextBeforeInitialAndInitialTwiceAreTypedErrors() throws Exception {
    LoadWindows w = new LoadWindows(1000);
    assertThatThrownBy(() -> w.next(1, List.of())).isInstanceOfSatisfying(LoadWindowException.class,
        e -> assertThat(e.reason()).isEqualTo(LoadWindowException.Reason.NOT_STARTED));
    assertThat(w.current()).isEmpty();
    KvPoolLoadUpdate first = w.initial(1, List.of());
    assertThatThrownBy(() -> w.initial(2, List.of())).isInstanceOfSatisfying(LoadWindowException.class,
        e -> assertThat(e.reason()).isEqualTo(LoadWindowException.Reason.ALREADY_STARTED));
    assertThat(w.current()).contains(first);
  }

  @Test
  void sequenceOverflowIsFatalAndTyped() throws Exception {
    KvPoolLoadUpdate last = new KvPoolLoadUpdate(-2L, 0, 1000, List.of());
    LoadWindows w = new LoadWindows(1000, last);
    assertThat(Long.toUnsignedString(w.next(1, List.of()).windowSequence())).isEqualTo("18446744073709551615");
    assertThatThrownBy(() -> w.next(2, List.of())).isInstanceOfSatisfying(LoadWindowException.class,
        e -> assertThat(e.reason()).isEqualTo(LoadWindowException.Reason.SEQUENCE_EXHAUSTED));
    assertThat(w.current().orElseThrow().windowSequence()).isEqualTo(-1L);
  }
}
