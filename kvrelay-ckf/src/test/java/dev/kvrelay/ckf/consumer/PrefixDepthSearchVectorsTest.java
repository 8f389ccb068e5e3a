package dev.kvrelay.ckf.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.ckf.consumer.RecordingProbe.Call;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** vectors.md §1.3 / ckf-cbi1.md §8.2: the seven upstream prefix-depth vectors, with probe traces. */
class PrefixDepthSearchVectorsTest {

  private static int[] search(int n, int mask, int window, RecordingProbe probe, PrefixSearchScratch scratch) {
    PrefixDepthSearch.find(n, mask, window, probe, scratch);
    int[] out = new int[16];
    scratch.copyDepths(out);
    return out;
  }

  private static int[] firstLanes(int[] depths, int lanes) {
    int[] out = new int[lanes];
    System.arraycopy(depths, 0, out, 0, lanes);
    return out;
  }

  @Test
  void vector1_probeMasks_1110_1111_windowOneOverReports_windowEightAndLinearFindThree() {
    boolean[] row = {true, true, true, false, true, true, true, true};
    RecordingProbe.Presence presence = (lane, pos) -> lane == 0 && row[pos];

    assertThat(search(8, 1, 1, new RecordingProbe(presence), new PrefixSearchScratch())[0]).isEqualTo(8);
    assertThat(search(8, 1, 8, new RecordingProbe(presence), new PrefixSearchScratch())[0]).isEqualTo(3);
    assertThat(RecordingProbe.linearDepths(8, 1, presence)[0]).isEqualTo(3);
  }

  @Test
  void vector2_sixteenLanes_exactDepths_andBisectionProbeGroupsPerLevel() {
    int[] depths = {3, 3, 6, 7, 11, 11, 15, 17, 3, 6, 11, 15, 17, 7, 3, 11};
    RecordingProbe probe = new RecordingProbe((lane, pos) -> pos < depths[lane]);
    int[] found = search(17, 0xFFFF, PrefixDepthSearch.DEFAULT_VERIFICATION_WINDOW, probe, new PrefixSearchScratch());

    assertThat(found).containsExactly(depths);
    // Initial probe and galloping: 0, then 1, 2, 4, 8, 16 with the lanes still sampling.
    assertThat(probe.calls.subList(0, 6)).containsExactly(
        new Call(0, 0xFFFF), new Call(1, 0xFFFF), new Call(2, 0xFFFF), new Call(4, 0xFFFF),
        new Call(8, lanesDeeperThan(depths, 4)), new Call(16, lanesDeeperThan(depths, 8)));
    // Bisection, level by level, groups in the upstream order.
    assertThat(probe.calls.subList(6, 9))
        .as("level 1").containsExactly(new Call(3, 0x4103), new Call(6, 0x220c), new Call(12, 0x8c70));
    assertThat(probe.calls.subList(9, 13)).as("level 2").containsExactly(
        new Call(5, 0x0204), new Call(7, 0x2008), new Call(10, 0x8430), new Call(14, 0x0840));
    assertThat(probe.calls.subList(13, 15))
        .as("level 3").containsExactly(new Call(11, 0x8430), new Call(15, 0x0840));
    // Then only the verification window (ascending positions, no further bisection).
    List<Integer> rest = probe.positions().subList(15, probe.calls.size());
    assertThat(rest).isSorted().doesNotHaveDuplicates();
  }

  private static int lanesDeeperThan(int[] depths, int position) {
    int mask = 0;
    for (int lane = 0; lane < depths.length; lane++) {
      if (depths[lane] > position) {
        mask |= 1 << lane;
      }
    }
    return mask;
  }

  @Test
  void vector3_holes_windowFour() {
    int[] depths = {9, 10, 11, 12};
    int[][] holes = {{0, 5}, {0, 7}, {1, 7}, {2, 6}, {2, 9}, {3, 5}};
    RecordingProbe probe = new RecordingProbe((lane, pos) -> {
      if (lane >= depths.length || pos >= depths[lane]) {
        return false;
      }
      for (int[] hole : holes) {
        if (hole[0] == lane && hole[1] == pos) {
          return false;
        }
      }
      return true;
    });
    int[] found = search(17, 0xF, 4, probe, new PrefixSearchScratch());
    assertThat(firstLanes(found, 4)).containsExactly(5, 7, 9, 12);
  }

  @Test
  void vector4_twoLanes_fallbackProbesPositions33to40Once_8calls_16laneProbes() {
    RecordingProbe.Presence presence = (lane, pos) -> lane < 2 && (pos < 40 || pos == 48);
    RecordingProbe probe = new RecordingProbe(presence);
    PrefixSearchScratch scratch = new PrefixSearchScratch();
    int[] found = search(65, 0b11, 2, probe, scratch);

    assertThat(firstLanes(found, 2)).containsExactly(40, 40);
    assertThat(scratch.fallbackProbeCalls()).isEqualTo(8);
    assertThat(scratch.fallbackLaneProbes()).isEqualTo(16);
    List<Call> tail = probe.calls.subList(probe.calls.size() - 8, probe.calls.size());
    List<Call> expected = new ArrayList<>();
    IntStream.rangeClosed(33, 40).forEach(p -> expected.add(new Call(p, 0b11)));
    assertThat(tail).containsExactlyElementsOf(expected);
    for (int p = 33; p <= 40; p++) {
      int position = p;
      assertThat(probe.positions().stream().filter(x -> x == position).count())
          .as("position %d probed once", p).isEqualTo(1);
    }
  }

  @Test
  void vector5_oneLane_provenanceSkip_reports44_linear41() {
    RecordingProbe.Presence presence = (lane, pos) -> lane == 0 && (pos < 41 || (pos >= 48 && pos <= 51));
    PrefixSearchScratch scratch = new PrefixSearchScratch();
    assertThat(search(65, 1, 8, new RecordingProbe(presence), scratch)[0]).isEqualTo(44);
    assertThat(scratch.provenanceSkips()).isEqualTo(1);
    assertThat(scratch.fallbackProbeCalls()).isZero();
    assertThat(RecordingProbe.linearDepths(65, 1, presence)[0]).isEqualTo(41);
  }

  @Test
  void vector6_oneLane_documentedResidual_reports33_linear20() {
    RecordingProbe.Presence presence = (lane, pos) -> lane == 0 && (pos < 20 || pos == 32 || pos == 48);
    assertThat(search(65, 1, 8, new RecordingProbe(presence), new PrefixSearchScratch())[0]).isEqualTo(33);
    assertThat(RecordingProbe.linearDepths(65, 1, presence)[0]).isEqualTo(20);
  }

  @Test
  void vector7_gallopingOrderOnNineIs_0_1_2_4_8() {
    RecordingProbe probe = new RecordingProbe((lane, pos) -> lane == 0);
    assertThat(search(9, 1, PrefixDepthSearch.DEFAULT_VERIFICATION_WINDOW, probe, new PrefixSearchScratch())[0])
        .isEqualTo(9);
    assertThat(probe.positions().subList(0, 5)).containsExactly(0, 1, 2, 4, 8);
  }

  @Test
  void bisectionMidpointRoundsDown_oddGapAfterGalloping() {
    // ckf-cbi1.md §7: mid = lower + (upper - lower) / 2. n = 13, full lane: gallop ends at (8, 13).
    RecordingProbe probe = new RecordingProbe((lane, pos) -> lane == 0);
    assertThat(search(13, 1, 2, probe, new PrefixSearchScratch())[0]).isEqualTo(13);
    assertThat(probe.positions()).containsExactly(0, 1, 2, 4, 8, 10, 11, 12, 11, 12);
  }

  @Test
  void emptySequenceAndMissAtZeroGiveDepthZeroForAllLanes() {
    RecordingProbe none = new RecordingProbe((lane, pos) -> false);
    assertThat(search(10, 0xFFFF, 2, none, new PrefixSearchScratch())).containsOnly(0);
    RecordingProbe all = new RecordingProbe((lane, pos) -> true);
    assertThat(search(0, 0xFFFF, 2, all, new PrefixSearchScratch())).containsOnly(0);
    assertThat(all.calls).isEmpty();
  }

  @Test
  void lanesOutsideTheReadyMaskReportZeroEvenIfPresent() {
    RecordingProbe all = new RecordingProbe((lane, pos) -> true);
    int[] found = search(20, 0b1010, 2, all, new PrefixSearchScratch());
    assertThat(found[1]).isEqualTo(20);
    assertThat(found[3]).isEqualTo(20);
    assertThat(found[0]).isZero();
    assertThat(found[2]).isZero();
    assertThat(all.calls).allSatisfy(c -> assertThat(c.lanes() & ~0b1010).isZero());
  }

  @Test
  void defaultWindowIsTwoAndRangeIsOneToEight() {
    assertThat(PrefixDepthSearch.DEFAULT_VERIFICATION_WINDOW).isEqualTo(2);
    assertThat(PrefixDepthSearch.isValidVerificationWindow(1)).isTrue();
    assertThat(PrefixDepthSearch.isValidVerificationWindow(8)).isTrue();
    assertThat(PrefixDepthSearch.isValidVerificationWindow(0)).isFalse();
    assertThat(PrefixDepthSearch.isValidVerificationWindow(9)).isFalse();
    RecordingProbe all = new RecordingProbe((lane, pos) -> true);
    assertThatThrownBy(() -> PrefixDepthSearch.find(4, 1, 9, all, new PrefixSearchScratch()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PrefixDepthSearch.find(-1, 1, 2, all, new PrefixSearchScratch()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
