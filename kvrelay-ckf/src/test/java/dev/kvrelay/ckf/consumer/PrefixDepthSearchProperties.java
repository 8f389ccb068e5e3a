package dev.kvrelay.ckf.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Prefix-depth search against the linear reference scan. */
class PrefixDepthSearchProperties {

  @Test
  void withoutCapacityHolesTheSearchIsExactForEveryWindow() {
    qt().withExamples(1500)
        .forAll(integers().between(0, 300), integers().between(1, 16), longs().all())
        .checkAssert((n, laneCount, seed) -> {
          SplittableRandom random = new SplittableRandom(seed);
          int mask = randomMaskWithBits(random, laneCount);
          int[] trueDepth = new int[16];
          long[] noise = new long[16];
          for (int lane = 0; lane < 16; lane++) {
            trueDepth[lane] = pickDepth(random, n);
            noise[lane] = random.nextLong();
          }
          // Lanes outside the mask answer random garbage: the search must ignore them.
          RecordingProbe.Presence presence = (lane, pos) ->
              (mask & (1 << lane)) != 0 ? pos < trueDepth[lane] : ((noise[lane] >>> (pos & 63)) & 1) != 0;
          PrefixSearchScratch scratch = new PrefixSearchScratch();
          for (int window = 1; window <= PrefixDepthSearch.MAX_VERIFICATION_WINDOW; window++) {
            PrefixDepthSearch.find(n, mask, window, new RecordingProbe(presence), scratch);
            for (int lane = 0; lane < 16; lane++) {
              int expected = (mask & (1 << lane)) != 0 ? trueDepth[lane] : 0;
              assertThat(scratch.depth(lane)).as("n=%d W=%d lane=%d", n, window, lane).isEqualTo(expected);
            }
          }
        });
  }

  @Test
  void withHolesTheSearchNeverUnderReportsAndStopsOnlyAtAMissOrAtN() {
    qt().withExamples(1500)
        .forAll(integers().between(0, 300), integers().between(1, 8), longs().all())
        .checkAssert((n, window, seed) -> {
          SplittableRandom random = new SplittableRandom(seed);
          int mask = randomMaskWithBits(random, 1 + random.nextInt(16));
          boolean[][] rows = new boolean[16][n];
          for (int lane = 0; lane < 16; lane++) {
            int depth = pickDepth(random, n);
            double holeRate = random.nextDouble() * 0.2;
            double tailRate = random.nextDouble() * 0.3;
            for (int pos = 0; pos < n; pos++) {
              rows[lane][pos] = pos < depth ? random.nextDouble() >= holeRate : random.nextDouble() < tailRate;
            }
          }
          RecordingProbe probe = RecordingProbe.ofRows(rows);
          PrefixSearchScratch scratch = new PrefixSearchScratch();
          PrefixDepthSearch.find(n, mask, window, probe, scratch);
          int[] linear = RecordingProbe.linearDepths(n, mask, (lane, pos) -> rows[lane][pos]);
          for (int lane = 0; lane < 16; lane++) {
            int depth = scratch.depth(lane);
            if ((mask & (1 << lane)) == 0) {
              assertThat(depth).isZero();
              continue;
            }
            assertThat(depth).as("lane %d", lane).isGreaterThanOrEqualTo(linear[lane]).isLessThanOrEqualTo(n);
            if (depth < n) {
              assertThat(rows[lane][depth]).as("reported depth %d of lane %d must be a miss", depth, lane).isFalse();
            }
          }
          assertThat(probe.calls).allSatisfy(c -> {
            assertThat(c.position()).isBetween(0, Math.max(0, n - 1));
            assertThat(c.lanes() & ~mask).isZero();
          });
        });
  }

  @Test
  void probeCallsDepthsAndDiagnosticsEqualTheLiteralSpecReference() {
    // ReferencePrefixSearch transcribes ckf-cbi1.md §7 per lane; the optimised search must make the same
    // probe calls (positions and lane groups, in order) and reach the same depths and fallback counters.
    qt().withExamples(3000)
        .forAll(integers().between(0, 200), integers().between(1, 8), longs().all())
        .checkAssert((n, window, seed) -> {
          SplittableRandom random = new SplittableRandom(seed);
          int mask = randomMaskWithBits(random, 1 + random.nextInt(16));
          boolean[][] rows = randomRows(random, n);
          RecordingProbe optimised = RecordingProbe.ofRows(rows);
          RecordingProbe reference = RecordingProbe.ofRows(rows);
          PrefixSearchScratch scratch = new PrefixSearchScratch();
          PrefixDepthSearch.find(n, mask, window, optimised, scratch);
          ReferencePrefixSearch.Outcome expected = ReferencePrefixSearch.find(n, mask, window, reference);
          assertThat(optimised.calls).as("probe calls").containsExactlyElementsOf(reference.calls);
          int[] depths = new int[16];
          scratch.copyDepths(depths);
          assertThat(depths).as("depths").containsExactly(expected.depths());
          assertThat(scratch.leftEdgeLanes()).isEqualTo(expected.leftEdgeLanes());
          assertThat(scratch.fallbackActivatedLanes()).isEqualTo(expected.fallbackActivatedLanes());
          assertThat(scratch.fallbackProbeCalls()).isEqualTo(expected.fallbackProbeCalls());
          assertThat(scratch.fallbackLaneProbes()).isEqualTo(expected.fallbackLaneProbes());
          assertThat(scratch.provenanceSkips()).isEqualTo(expected.provenanceSkips());
        });
  }

  /** Per lane: a prefix with holes, a sparse tail, and sometimes islands far beyond the prefix. */
  static boolean[][] randomRows(SplittableRandom random, int n) {
    boolean[][] rows = new boolean[16][n];
    for (int lane = 0; lane < 16; lane++) {
      int depth = pickDepth(random, n);
      double holeRate = random.nextInt(3) == 0 ? 0 : random.nextDouble() * 0.25;
      double tailRate = random.nextInt(3) == 0 ? 0 : random.nextDouble() * 0.4;
      for (int pos = 0; pos < n; pos++) {
        rows[lane][pos] = pos < depth ? random.nextDouble() >= holeRate : random.nextDouble() < tailRate;
      }
      for (int islands = random.nextInt(3); islands > 0 && n > 0; islands--) {
        int from = random.nextInt(n);
        int to = Math.min(n, from + 1 + random.nextInt(6));
        for (int pos = from; pos < to; pos++) {
          rows[lane][pos] = true;
        }
      }
    }
    return rows;
  }

  private static int pickDepth(SplittableRandom random, int n) {
    return switch (random.nextInt(4)) {
      case 0 -> 0;
      case 1 -> n;
      default -> random.nextInt(n + 1);
    };
  }

  private static int randomMaskWithBits(SplittableRandom random, int bits) {
    int mask = 0;
    while (Integer.bitCount(mask) < bits) {
      mask |= 1 << random.nextInt(16);
    }
    return mask;
  }
}
