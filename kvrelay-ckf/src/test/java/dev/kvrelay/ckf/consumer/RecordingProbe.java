package dev.kvrelay.ckf.consumer;

import java.util.ArrayList;
import java.util.List;

/** Test probe over a presence oracle; records every (position, lanes) call in order. */
final class RecordingProbe implements LaneProbe {
  /** Presence of the element at a position in a lane. */
  @FunctionalInterface
  interface Presence {
    boolean present(int lane, int position);
  }

  /** One recorded probe call. */
  record Call(int position, int lanes) {
    @Override
    public String toString() {
      return "(" + position + ", 0x" + String.format("%04x", lanes) + ")";
    }
  }

  private final Presence presence;
  final List<Call> calls = new ArrayList<>();

  RecordingProbe(Presence presence) {
    this.presence = presence;
  }

  /** Presence from explicit per-lane rows: {@code rows[lane][position]}. */
  static RecordingProbe ofRows(boolean[][] rows) {
    return new RecordingProbe((lane, pos) -> lane < rows.length && pos < rows[lane].length && rows[lane][pos]);
  }

  @Override
  public int probe(int position, int lanes) {
    calls.add(new Call(position, lanes));
    int mask = 0;
    // Answer for all 16 lanes (not only the requested ones) so that the search's own masking is exercised.
    for (int lane = 0; lane < 16; lane++) {
      if (presence.present(lane, position)) {
        mask |= 1 << lane;
      }
    }
    return mask;
  }

  List<Integer> positions() {
    return calls.stream().map(Call::position).toList();
  }

  /** Independent reference: the linear scan ({@code linear_prefix_depths}), first missing position per lane. */
  static int[] linearDepths(int n, int mask, Presence presence) {
    int[] depths = new int[16];
    for (int lane = 0; lane < 16; lane++) {
      if ((mask & (1 << lane)) == 0) {
        continue;
      }
      int d = 0;
      while (d < n && presence.present(lane, d)) {
        d++;
      }
      depths[lane] = d;
    }
    return depths;
  }
}
