package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.KvPoolId;
import java.util.Objects;

/**
 * Immutable and thread-safe: the prefix match of one ready, fresh pool (one DC) for a request.
 *
 * @param pool the pool
 * @param lane its physical lane
 * @param depthBlocks the matched prefix depth in blocks (may be 0)
 * @param matchedTokens {@code depthBlocks × kv_block_size} (ckf-cbi1.md §7, WAN scorer)
 */
public record GlobalViewMatch(KvPoolId pool, int lane, int depthBlocks, long matchedTokens) {
  /** Rejects a null pool. */
  public GlobalViewMatch {
    Objects.requireNonNull(pool, "pool");
  }

  /** The pool's data-center id. */
  public DcId dcId() {
    return pool.dcId();
  }
}
