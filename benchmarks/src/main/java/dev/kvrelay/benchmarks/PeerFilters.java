package dev.kvrelay.benchmarks;

import com.github.mgunlogson.cuckoofilter4j.CuckooFilter;
import com.google.common.hash.Funnels;
import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;
import dev.kvrelay.ckf.CkfSizing;
import dev.kvrelay.ckf.CuckooTable;
import org.fastfilter.cuckoo.Cuckoo16;
import org.fastfilter.cuckoo.CuckooPlus16;

/**
 * Not thread-safe: each instance is confined to one JMH thread. The filters {@link PeerFilterBenchmark}
 * compares behind one small interface, each sized to the same {@code 4·B} 16-bit fingerprint slots as our
 * {@link CuckooTable} of {@code B} buckets. Only one implementation is loaded per JMH fork (the
 * {@code impl} parameter), so the interface call site stays monomorphic.
 */
abstract class PeerFilters {
  /** Implementation names, the values of the {@code impl} JMH parameter. */
  static final String CKF = "ckf";
  static final String CUCKOO16 = "fastfilterCuckoo16";
  static final String CUCKOO_PLUS16 = "fastfilterCuckooPlus16";
  static final String CUCKOOFILTER4J = "cuckoofilter4j";

  /** False-positive rate that makes cuckoofilter4j choose 16-bit tags: ceil(log2(1/fpp + 3) / 0.955) = 16. */
  static final double CUCKOOFILTER4J_FPP = 3e-5;

  private PeerFilters() {}

  /** Not thread-safe: one filter, confined to its JMH thread. */
  interface Filter {
    /** Inserts; false if the filter reports it is full (the fill skips such keys). */
    boolean insert(long key);

    boolean contains(long key);

    /** Removes one copy; throws {@link UnsupportedOperationException} where the peer has no delete. */
    boolean remove(long key);

    /** Bits of the fingerprint storage. */
    long bits();
  }

  static Filter create(String impl, int buckets) throws CkfConfigException {
    int slots = 4 * buckets;
    return switch (impl) {
      case CKF -> new Ckf(CuckooTable.create(CkfFormat.withDefaultSeed(buckets), CkfSizing.DEFAULT_MAX_KICKS));
      case CUCKOO16 -> new FastFilter16(new Cuckoo16(slots));
      case CUCKOO_PLUS16 -> new FastFilterPlus16(new CuckooPlus16(slots));
      case CUCKOOFILTER4J -> new Mgunlogson(new CuckooFilter.Builder<Long>(Funnels.longFunnel(), (long) (slots * 0.95))
          .withFalsePositiveRate(CUCKOOFILTER4J_FPP).withExpectedConcurrency(1).build());
      default -> throw new IllegalArgumentException("unknown impl " + impl);
    };
  }

  /** Not thread-safe: ours, {@code ckf-cbi1.md} §3.1–§3.3. */
  static final class Ckf implements Filter {
    final CuckooTable table;

    Ckf(CuckooTable table) {
      this.table = table;
    }

    @Override
    public boolean insert(long key) {
      return table.insert(key, CuckooTable.IGNORE_WRITES);
    }

    @Override
    public boolean contains(long key) {
      return table.contains(key);
    }

    @Override
    public boolean remove(long key) {
      return table.remove(key, CuckooTable.IGNORE_WRITES);
    }

    @Override
    public long bits() {
      return 64L * table.bucketCount();
    }
  }

  /**
   * Not thread-safe: FastFilter-Java {@code Cuckoo16} (4 × 16-bit fingerprints per {@code long} bucket).
   * It supports insert after construction (fixed capacity; a full table throws), but no remove.
   */
  static final class FastFilter16 implements Filter {
    final Cuckoo16 f;

    FastFilter16(Cuckoo16 f) {
      this.f = f;
    }

    @Override
    public boolean insert(long key) {
      try {
        f.insert(key);
        return true;
      } catch (IllegalStateException full) {
        return false;
      }
    }

    @Override
    public boolean contains(long key) {
      return f.mayContain(key);
    }

    @Override
    public boolean remove(long key) {
      throw new UnsupportedOperationException("fastfilter Cuckoo16 has no remove");
    }

    @Override
    public long bits() {
      return f.getBitCount();
    }
  }

  /**
   * Not thread-safe: FastFilter-Java {@code CuckooPlus16} (one 16-bit fingerprint per slot, {@code short[]}).
   * Insert after construction, no remove.
   */
  static final class FastFilterPlus16 implements Filter {
    final CuckooPlus16 f;

    FastFilterPlus16(CuckooPlus16 f) {
      this.f = f;
    }

    @Override
    public boolean insert(long key) {
      try {
        f.insert(key);
        return true;
      } catch (IllegalStateException full) {
        return false;
      }
    }

    @Override
    public boolean contains(long key) {
      return f.mayContain(key);
    }

    @Override
    public boolean remove(long key) {
      throw new UnsupportedOperationException("fastfilter CuckooPlus16 has no remove");
    }

    @Override
    public long bits() {
      return f.getBitCount();
    }
  }

  /**
   * Not thread-safe as used here (the library itself locks buckets): cuckoofilter4j, keys boxed through
   * Guava's {@code Funnels.longFunnel()} and hashed with its default murmur3; insert, contains and delete.
   */
  static final class Mgunlogson implements Filter {
    final CuckooFilter<Long> f;

    Mgunlogson(CuckooFilter<Long> f) {
      this.f = f;
    }

    @Override
    public boolean insert(long key) {
      return f.put(key);
    }

    @Override
    public boolean contains(long key) {
      return f.mightContain(key);
    }

    @Override
    public boolean remove(long key) {
      return f.delete(key);
    }

    @Override
    public long bits() {
      return f.getStorageSize();
    }
  }
}
