package dev.kvrelay.ckf.consumer;

import java.util.TreeMap;

/**
 * Independent reference for the prefix-depth search: a literal, per-lane transcription of ckf-cbi1.md §7
 * steps 1–6, written for clarity, not speed (maps, per-lane loops). It shares no code with
 * {@link PrefixDepthSearch}, so the optimised search can be compared with it call for call.
 */
final class ReferencePrefixSearch {
  /** Depths and diagnostics of one reference run. */
  record Outcome(int[] depths, int leftEdgeLanes, int fallbackActivatedLanes, int fallbackProbeCalls,
      int fallbackLaneProbes, int provenanceSkips) {}

  private ReferencePrefixSearch() {}

  static Outcome find(int n, int readyMask, int window, LaneProbe probe) {
    int[] depth = new int[16];
    int mask = readyMask & 0xFFFF;
    if (n == 0 || mask == 0) {
      return new Outcome(depth, 0, 0, 0, 0, 0);
    }
    // Step 1.
    int active = mask & probe.probe(0, mask);
    if (active == 0) {
      return new Outcome(depth, 0, 0, 0, 0, 0);
    }
    // Step 2: galloping.
    int[] lower = new int[16];
    int[] pred = new int[16];
    int[] upper = new int[16];
    for (int lane = 0; lane < 16; lane++) {
      upper[lane] = n;
    }
    int sampling = active;
    long pos = 1;
    while (pos < n && sampling != 0) {
      int p = (int) pos;
      int hits = probe.probe(p, sampling);
      for (int lane = 0; lane < 16; lane++) {
        if (!in(sampling, lane)) {
          continue;
        }
        if (in(hits, lane)) {
          pred[lane] = lower[lane];
          lower[lane] = p;
        } else {
          upper[lane] = p;
          sampling &= ~(1 << lane);
        }
      }
      pos *= 2;
    }
    // Step 3: bisection, one level per round; equal midpoints share a probe, groups by lowest lane.
    while (true) {
      TreeMap<Integer, Integer> midOfLowestLane = new TreeMap<>();
      TreeMap<Integer, Integer> lanesOfMid = new TreeMap<>();
      for (int lane = 0; lane < 16; lane++) {
        if (in(active, lane) && upper[lane] - lower[lane] > 1) {
          int mid = lower[lane] + (upper[lane] - lower[lane]) / 2;
          if (!lanesOfMid.containsKey(mid)) {
            midOfLowestLane.put(lane, mid);
          }
          lanesOfMid.merge(mid, 1 << lane, (x, y) -> x | y);
        }
      }
      if (lanesOfMid.isEmpty()) {
        break;
      }
      for (int mid : midOfLowestLane.values()) {
        int group = lanesOfMid.get(mid);
        int hits = probe.probe(mid, group);
        for (int lane = 0; lane < 16; lane++) {
          if (!in(group, lane)) {
            continue;
          }
          if (in(hits, lane)) {
            pred[lane] = lower[lane];
            lower[lane] = mid;
          } else {
            upper[lane] = mid;
          }
        }
      }
    }
    // Step 4.
    int[] windowStart = new int[16];
    for (int lane = 0; lane < 16; lane++) {
      if (in(active, lane)) {
        depth[lane] = upper[lane];
        windowStart[lane] = Math.max(0, upper[lane] - window);
      }
    }
    // Step 5: verification windows, ascending positions, lanes grouped by position.
    int verifying = active;
    int marked = 0;
    int leftEdge = 0;
    int lowestStart = Integer.MAX_VALUE;
    int highestEnd = 0;
    for (int lane = 0; lane < 16; lane++) {
      if (in(active, lane)) {
        lowestStart = Math.min(lowestStart, windowStart[lane]);
        highestEnd = Math.max(highestEnd, upper[lane]);
      }
    }
    for (int p = lowestStart; p < highestEnd; p++) {
      int group = 0;
      for (int lane = 0; lane < 16; lane++) {
        if (in(verifying, lane) && windowStart[lane] <= p && p < upper[lane]) {
          group |= 1 << lane;
        }
      }
      if (group == 0) {
        continue;
      }
      int hits = probe.probe(p, group);
      for (int lane = 0; lane < 16; lane++) {
        if (in(group, lane) && !in(hits, lane)) {
          depth[lane] = p;
          verifying &= ~(1 << lane);
          if (p == windowStart[lane]) {
            marked |= 1 << lane;
            leftEdge++;
          }
        }
      }
    }
    // Step 6: fallback scans of [pred + 1, window start), grouped by equal cursor, lowest first.
    int[] cursor = new int[16];
    int scanning = 0;
    int skips = 0;
    for (int lane = 0; lane < 16; lane++) {
      if (!in(marked, lane)) {
        continue;
      }
      if (pred[lane] >= windowStart[lane]) {
        skips++;
      } else if (pred[lane] + 1 < windowStart[lane]) {
        cursor[lane] = pred[lane] + 1;
        scanning |= 1 << lane;
      }
    }
    int activated = Integer.bitCount(scanning);
    int calls = 0;
    int laneProbes = 0;
    while (scanning != 0) {
      int p = Integer.MAX_VALUE;
      for (int lane = 0; lane < 16; lane++) {
        if (in(scanning, lane)) {
          p = Math.min(p, cursor[lane]);
        }
      }
      int group = 0;
      for (int lane = 0; lane < 16; lane++) {
        if (in(scanning, lane) && cursor[lane] == p) {
          group |= 1 << lane;
        }
      }
      int hits = probe.probe(p, group);
      calls++;
      laneProbes += Integer.bitCount(group);
      for (int lane = 0; lane < 16; lane++) {
        if (!in(group, lane)) {
          continue;
        }
        if (!in(hits, lane)) {
          depth[lane] = p;
          scanning &= ~(1 << lane);
        } else if (++cursor[lane] == windowStart[lane]) {
          scanning &= ~(1 << lane);
        }
      }
    }
    return new Outcome(depth, leftEdge, activated, calls, laneProbes, skips);
  }

  private static boolean in(int mask, int lane) {
    return (mask & (1 << lane)) != 0;
  }
}
