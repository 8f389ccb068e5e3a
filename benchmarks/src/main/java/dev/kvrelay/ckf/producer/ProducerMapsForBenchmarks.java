package dev.kvrelay.ckf.producer;

/**
 * Not thread-safe: each wrapper is confined to one JMH thread. Benchmark-only access to the producer's
 * package-private exact-ownership maps ({@code ckf-cbi1.md} §3.4): the per-member lineage map
 * {@link LongLongMap} (external id → canonical hash) and {@link OwnersMap} (canonical hash → owner count,
 * resident flag). This class lives in the {@code benchmarks} module under the producer's package name (a
 * split package, legal on the class path the benchmark jar runs on), so the product's module keeps the
 * maps unexported. Each operation is the sequence of map calls {@code CkfProducer} itself makes.
 */
public final class ProducerMapsForBenchmarks {
  private ProducerMapsForBenchmarks() {}

  /** The maps' own key mix ({@link HashMix#mix}), for workloads that need distinct, well-spread keys. */
  public static long mix(long k) {
    return HashMix.mix(k);
  }

  /** Not thread-safe: a lineage map created at the producer's initial member capacity (16). */
  public static final class Lineage {
    private final LongLongMap map = new LongLongMap(16);

    /** As {@code CkfProducer.addMapping}: insert of an absent external id (lookup first). */
    public boolean put(long key, long value) {
      if (map.indexOf(key) != LongLongMap.MISSING) {
        return false;
      }
      map.insertAbsent(key, value);
      return true;
    }

    /** The canonical hash of {@code key}, or {@code missing}. */
    public long get(long key, long missing) {
      int i = map.indexOf(key);
      return i == LongLongMap.MISSING ? missing : map.valueAt(i);
    }

    public boolean remove(long key) {
      return map.remove(key);
    }

    public int size() {
      return map.size();
    }

    /** The producer's own estimate from array lengths. */
    public long footprintBytes() {
      return map.footprintBytes();
    }
  }

  /** Not thread-safe: an owner-count map created at the producer's initial capacity (1024). */
  public static final class Owners {
    private final OwnersMap map = new OwnersMap(1024);

    /** As {@code CkfProducer.addOwner}: the owner count grows by one, an absent hash enters at 1, resident. */
    public void addOwner(long key) {
      int o = map.indexOf(key);
      if (o == OwnersMap.MISSING) {
        map.insertAbsent(key, 1, true);
      } else {
        map.setOwnersAt(o, map.ownersAt(o) + 1);
      }
    }

    /** Owner count, 0 when absent. */
    public long owners(long key) {
      int o = map.indexOf(key);
      return o == OwnersMap.MISSING ? 0 : map.ownersAt(o);
    }

    /** Drops one owner; removes the entry at zero. Returns whether the key was present. */
    public boolean removeOwner(long key) {
      int o = map.indexOf(key);
      if (o == OwnersMap.MISSING) {
        return false;
      }
      long count = map.ownersAt(o);
      if (count <= 1) {
        map.removeAt(o);
      } else {
        map.setOwnersAt(o, count - 1);
      }
      return true;
    }

    public int size() {
      return map.size();
    }

    public long footprintBytes() {
      return map.footprintBytes();
    }
  }
}
