package dev.kvrelay.ckf.producer;

import dev.kvrelay.ckf.hashing.SequenceHash;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: reusable scratch confined to the pool actor. The validation half of a Stored event:
 * resolves the parent and computes each block's canonical hash ({@link #chain}), then classifies each block
 * as a new mapping or a re-offer ({@link #classify}), without changing any state. Allocation-free once its arrays fit the largest batch.
 */
final class StoredPreparation {
  static final byte NEW_MAPPING = 1;
  static final byte REOFFER = 2;

  private long[] canonical = new long[64];
  private byte[] kinds = new byte[64];
  /** External ids first mapped earlier in the current batch; empty between calls. */
  private final LongLongMap batchMappings = new LongLongMap(64);

  /**
   * Prepares {@code event} against {@code lineage}: {@link #chain} then {@link #classify}. On
   * {@link CkfOutcome#OK} {@link #canonical(int)} and {@link #kind(int)} describe every block.
   */
  CkfOutcome prepare(StoredBatch event, @Nullable LongLongMap lineage) {
    CkfOutcome chained = chain(event, lineage);
    return chained != CkfOutcome.OK ? chained : classify(event, lineage);
  }

  /**
   * The first half of preparing {@code event} against {@code lineage} (the member's lineage, or null if it
   * has none): resolves the parent and computes every block's canonical hash, reading no state but the
   * parent's lineage entry, so that a caller can touch the blocks' state (whose addresses depend on these
   * hashes) before {@link #classify} looks it up. On {@link CkfOutcome#OK} {@link #canonical(int)} holds
   * every block's hash.
   */
  CkfOutcome chain(StoredBatch event, @Nullable LongLongMap lineage) {
    int n = event.size();
    ensureCapacity(n);
    long parent = 0;
    boolean chained = false;
    if (event.hasParent()) {
      int p = lineage == null ? LongLongMap.MISSING : lineage.indexOf(event.parentHash());
      if (lineage == null || p == LongLongMap.MISSING) {
        return CkfOutcome.PARENT_BLOCK_NOT_FOUND;
      }
      parent = lineage.valueAt(p);
      chained = true;
    } else if (event.hasStartPosition() && event.startPosition() != 0) {
      return CkfOutcome.INVALID_BLOCK_SEQUENCE;
    }
    long[] c = canonical;
    for (int i = 0; i < n; i++) {
      long tokens = event.rawTokensHash(i);
      parent = chained ? SequenceHash.child(parent, tokens) : SequenceHash.root(tokens);
      chained = true;
      c[i] = parent;
    }
    return CkfOutcome.OK;
  }

  /**
   * The second half, after an {@link CkfOutcome#OK} {@link #chain} of the same event: classifies each block
   * as a new mapping or a re-offer ({@link CkfOutcome#INVALID_BLOCK_SEQUENCE} if a known external id maps to
   * another hash), without changing any state. On {@link CkfOutcome#OK} {@link #kind(int)} describes every
   * block.
   */
  CkfOutcome classify(StoredBatch event, @Nullable LongLongMap lineage) {
    int n = event.size();
    CkfOutcome result = CkfOutcome.OK;
    int i = 0;
    for (; i < n; i++) {
      long c = canonical[i];
      long external = event.rawExternalHash(i);
      int known = lineage == null ? LongLongMap.MISSING : lineage.indexOf(external);
      if (lineage != null && known != LongLongMap.MISSING) {
        if (lineage.valueAt(known) != c) {
          result = CkfOutcome.INVALID_BLOCK_SEQUENCE;
          break;
        }
        kinds[i] = REOFFER;
      } else {
        int earlier = batchMappings.indexOf(external);
        if (earlier != LongLongMap.MISSING) {
          if (batchMappings.valueAt(earlier) != c) {
            result = CkfOutcome.INVALID_BLOCK_SEQUENCE;
            break;
          }
          kinds[i] = REOFFER;
        } else {
          batchMappings.insertAbsent(external, c);
          kinds[i] = NEW_MAPPING;
        }
      }
    }
    for (int j = 0; j < i; j++) {
      if (kinds[j] == NEW_MAPPING) {
        batchMappings.remove(event.rawExternalHash(j));
      }
    }
    return result;
  }

  /**
   * After an {@link CkfOutcome#OK} {@link #classify} of {@code n} blocks: true if a new mapping's hash
   * already has {@code u32::MAX} owners ({@code OWNERSHIP_DEGREE_OVERFLOW}). Reads {@code owners} only.
   */
  boolean ownerCountFull(OwnersMap owners, int n) {
    for (int i = 0; i < n; i++) {
      if (kinds[i] == NEW_MAPPING) {
        int o = owners.indexOf(canonical[i]);
        if (o != OwnersMap.MISSING && owners.ownersAt(o) == OwnersMap.MAX_OWNERS) {
          return true;
        }
      }
    }
    return false;
  }

  long canonical(int i) {
    return canonical[i];
  }

  byte kind(int i) {
    return kinds[i];
  }

  private void ensureCapacity(int n) {
    if (n > canonical.length) {
      int cap = Math.max(n, canonical.length + (canonical.length >>> 1));
      canonical = new long[cap];
      kinds = new byte[cap];
    }
  }
}
