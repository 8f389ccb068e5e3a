package dev.kvrelay.spi.eventplane;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * Stateless and thread-safe: random event-plane values built from a seed (QuickTheories supplies the
 * seed), biased towards the boundaries of every msgpack integer and string width.
 */
final class EventGens {
  private EventGens() {}

  /** An unsigned 64-bit value near one of the msgpack width boundaries, or anywhere. */
  static long u64(SplittableRandom r) {
    switch (r.nextInt(8)) {
      case 0: return r.nextInt(128);
      case 1: return 127 + r.nextInt(3);
      case 2: return 255 + r.nextInt(3) - 1;
      case 3: return 65_535 + r.nextInt(3) - 1;
      case 4: return 0xFFFF_FFFFL + r.nextInt(3) - 1;
      case 5: return Long.MAX_VALUE + r.nextInt(3) - 1;
      case 6: return -1L - r.nextInt(2);
      default: return r.nextLong();
    }
  }

  static int u32(SplittableRandom r) {
    switch (r.nextInt(5)) {
      case 0: return r.nextInt(8);
      case 1: return -1;
      case 2: return Integer.MIN_VALUE;
      default: return (int) u64(r);
    }
  }

  static OptionalLong optU64(SplittableRandom r) {
    return r.nextInt(3) == 0 ? OptionalLong.empty() : OptionalLong.of(u64(r));
  }

  static String text(SplittableRandom r) {
    int len = switch (r.nextInt(4)) {
      case 0 -> r.nextInt(32);
      case 1 -> 31 + r.nextInt(3);
      case 2 -> 255 + r.nextInt(3) - 1;
      default -> r.nextInt(300);
    };
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < len; i++) {
      int kind = r.nextInt(10);
      if (kind == 0) {
        sb.append('é');
      } else if (kind == 1) {
        sb.appendCodePoint(0x1F600);
      } else {
        sb.append((char) ('a' + r.nextInt(26)));
      }
    }
    return sb.toString();
  }

  static ResidencyDomain domain(SplittableRandom r) {
    return switch (r.nextInt(5)) {
      case 0 -> ResidencyDomain.ABSENT;
      case 1 -> ResidencyDomain.WORKER;
      case 2 -> ResidencyDomain.CACHE_OWNER;
      case 3 -> ResidencyDomain.unknown(null);
      default -> ResidencyDomain.unknown("z" + text(r));
    };
  }

  static KvEventData data(SplittableRandom r) {
    switch (r.nextInt(3)) {
      case 0: {
        int n = r.nextInt(4) == 0 ? 16 + r.nextInt(3) : r.nextInt(6);
        List<StoredBlock> blocks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          MmExtraInfo mm = null;
          if (r.nextInt(4) == 0) {
            List<MmExtraInfo.MmObject> objs = new ArrayList<>();
            int k = r.nextInt(3);
            for (int j = 0; j < k; j++) {
              List<MmExtraInfo.TokenRange> ranges = new ArrayList<>();
              int m = r.nextInt(3);
              for (int q = 0; q < m; q++) {
                ranges.add(new MmExtraInfo.TokenRange(u64(r), u64(r)));
              }
              objs.add(new MmExtraInfo.MmObject(u64(r), ranges));
            }
            mm = new MmExtraInfo(objs);
          }
          blocks.add(new StoredBlock(u64(r), u64(r), mm));
        }
        return new KvEventData.Stored(optU64(r), optU64(r), blocks);
      }
      case 1: {
        int n = r.nextInt(4) == 0 ? 16 + r.nextInt(3) : r.nextInt(8);
        long[] h = new long[n];
        for (int i = 0; i < n; i++) {
          h[i] = u64(r);
        }
        return new KvEventData.Removed(h);
      }
      default:
        return KvEventData.Cleared.INSTANCE;
    }
  }

  static RouterEvent routerEvent(SplittableRandom r) {
    StorageTier[] tiers = StorageTier.values();
    return new RouterEvent(u64(r), tiers[r.nextInt(tiers.length)], domain(r), u64(r), u32(r), data(r));
  }

  static ActiveLoad activeLoad(SplittableRandom r) {
    SchedulerLoadScope[] scopes = SchedulerLoadScope.values();
    SchedulerLoadScope scope = r.nextInt(3) == 0 ? null : scopes[r.nextInt(scopes.length)];
    return new ActiveLoad(u64(r), u32(r), optU64(r), optU64(r), scope, optU64(r));
  }

  static EventEnvelope envelope(SplittableRandom r, String topic) {
    return new EventEnvelope(u64(r), u64(r), u64(r), topic);
  }
}
