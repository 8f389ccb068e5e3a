package dev.kvrelay.engine.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadWindowsProperties {

  @Test
  void sequencesStrictlyIncreaseAndEntriesAreSortedUniquePools() {
    qt().withExamples(200).forAll(lists().of(lists().of(integers().between(0, 40)).ofSizeBetween(0, 10))
            .ofSizeBetween(1, 10))
        .checkAssert(windows -> {
          LoadWindows w = new LoadWindows(1000);
          long expectedSequence = 0;
          for (List<Integer> poolKeys : windows) {
            List<PoolLoadReport> reports = new ArrayList<>();
            for (int k : new LinkedHashSet<>(poolKeys)) {
              reports.add(new PoolLoadReport(LoadFixtures.producer(k % 5, k / 5), PoolLoadSnapshot.EMPTY));
            }
            KvPoolLoadUpdate u;
            try {
              u = expectedSequence == 0 ? w.initial(expectedSequence, reports) : w.next(expectedSequence, reports);
            } catch (LoadWindowException e) {
              throw new AssertionError(e);
            }
            assertThat(u.windowSequence()).isEqualTo(expectedSequence);
            assertThat(u.pools()).hasSize(reports.size());
            for (int i = 1; i < u.pools().size(); i++) {
              assertThat(u.pools().get(i - 1).producer().poolId().compareTo(u.pools().get(i).producer().poolId()))
                  .isNegative();
            }
            expectedSequence++;
          }
        });
  }
}
