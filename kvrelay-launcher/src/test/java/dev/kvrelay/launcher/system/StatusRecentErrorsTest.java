package dev.kvrelay.launcher.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** {@link RecentErrors}: entries from counter increases, the bound, the dropped count, unsigned counters. */
class StatusRecentErrorsTest {

  @Test
  void anIncreaseIsOneEntryAndAnUnchangedCounterNone() {
    RecentErrors r = new RecentErrors();
    r.observe(1_000, "relay", Map.of("sourceFaults", 0L, "hubFaults", 0L));
    assertThat(r.entries()).isEmpty();
    r.observe(2_000, "relay", Map.of("sourceFaults", 3L, "hubFaults", 0L));
    r.observe(3_000, "relay", Map.of("sourceFaults", 3L, "hubFaults", 0L));
    assertThat(r.entries()).containsExactly(new RecentErrors.Entry(2_000, "relay", "sourceFaults", 3, 3, null));
    assertThat(r.recorded()).isEqualTo(1);
    assertThat(r.dropped()).isZero();
  }

  @Test
  void aScopesFirstObservationComparesWithZeroAndScopesAreSeparate() {
    RecentErrors r = new RecentErrors();
    r.observe(5, "a.b.c gen 1", Map.of("recovery.gaps", 2L));
    r.observe(5, "a.b.c gen 2", Map.of("recovery.gaps", 0L));
    r.observe(6, "a.b.c gen 2", Map.of("recovery.gaps", 1L));
    assertThat(r.entries()).containsExactly(new RecentErrors.Entry(5, "a.b.c gen 1", "recovery.gaps", 2, 2, null),
        new RecentErrors.Entry(6, "a.b.c gen 2", "recovery.gaps", 1, 1, null));
    // a forgotten scope starts from zero again
    r.retainScopes(Set.of("a.b.c gen 2"));
    r.observe(7, "a.b.c gen 1", Map.of("recovery.gaps", 2L));
    assertThat(r.entries()).hasSize(3).last().isEqualTo(new RecentErrors.Entry(7, "a.b.c gen 1", "recovery.gaps", 2,
        2, null));
  }

  @Test
  void countersAreUnsignedAndOneThatGoesBackRebasesWithoutAnEntry() {
    RecentErrors r = new RecentErrors();
    long big = Long.MAX_VALUE;
    r.observe(1, "relay", Map.of("c", big));
    r.observe(2, "relay", Map.of("c", big + 2)); // 2^63 + 1 as u64: an increase of 2
    assertThat(r.entries().get(1)).isEqualTo(new RecentErrors.Entry(2, "relay", "c", 2, big + 2, null));
    r.observe(3, "relay", Map.of("c", 5L)); // went back: re-based
    r.observe(4, "relay", Map.of("c", 6L));
    assertThat(r.entries()).hasSize(3).last().isEqualTo(new RecentErrors.Entry(4, "relay", "c", 1, 6, null));
  }

  @Test
  void aMessageIsRecordedWhenItChanges() {
    RecentErrors r = new RecentErrors();
    r.observeMessage(1, "sources", "lastError", null);
    r.observeMessage(2, "sources", "lastError", "bad revision");
    r.observeMessage(3, "sources", "lastError", "bad revision");
    r.observeMessage(4, "sources", "lastError", null);
    r.observeMessage(5, "sources", "lastError", "unknown field");
    r.observeMessage(6, "wan", "lastError", "bad revision");
    assertThat(r.entries()).extracting(RecentErrors.Entry::atMillis).containsExactly(2L, 5L, 6L);
    assertThat(r.entries().get(1).message()).isEqualTo("unknown field");
  }

  @Test
  void theRingKeepsTheNewestAndCountsWhatItPushedOut() {
    RecentErrors r = new RecentErrors(3);
    for (long i = 1; i <= 5; i++) {
      r.observe(i, "relay", Map.of("c", i));
    }
    assertThat(r.entries()).extracting(RecentErrors.Entry::total).containsExactly(3L, 4L, 5L);
    assertThat(r.recorded()).isEqualTo(5);
    assertThat(r.dropped()).isEqualTo(2);
    assertThatThrownBy(() -> new RecentErrors(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity");
  }

  @Test
  void concurrentObserversLoseNothingUncounted() throws Exception {
    RecentErrors r = new RecentErrors();
    int threads = 4;
    int rounds = 2_000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String scope = "pool-" + t;
      Thread th = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (long i = 1; i <= rounds; i++) {
          r.observe(i, scope, Map.of("c", i));
          r.entries(); // readers run beside the writers
        }
      });
      th.start();
      started.add(th);
    }
    go.countDown();
    for (Thread th : started) {
      th.join(30_000);
      assertThat(th.isAlive()).isFalse();
    }
    assertThat(r.recorded()).isEqualTo((long) threads * rounds);
    assertThat(r.dropped()).isEqualTo((long) threads * rounds - RecentErrors.CAPACITY);
    assertThat(r.entries()).hasSize(RecentErrors.CAPACITY)
        .allSatisfy(e -> assertThat(e.increase()).isEqualTo(1));
  }
}
