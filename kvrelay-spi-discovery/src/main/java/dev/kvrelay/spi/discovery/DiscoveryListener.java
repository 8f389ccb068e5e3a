package dev.kvrelay.spi.discovery;

import java.util.List;

/**
 * Confined to one delivery thread per watch: receives a watch's callbacks one at a time, in order, never
 * concurrently. Implementations need no locking for state only these callbacks touch, but must return
 * promptly (they hold up the watch) and should not throw (a thrown exception is logged and dropped).
 *
 * <p>Order: {@link #onSnapshot} comes first, exactly once, before any other state callback; then any
 * sequence of {@link #onUpserted}, {@link #onRemoved}, {@link #onModelTaintsUpdated} and {@link
 * #onResync}. Changes to one key arrive in the order they happened. {@link #onError} may come at any
 * time and never ends the watch. After {@link DiscoveryWatch#close()} returns, no callback starts.
 */
public interface DiscoveryListener {

  /** The complete initial state within the watch's scope. */
  void onSnapshot(List<DiscoveryRecord> records);

  /** An object appeared or changed (etcd PUT, Kubernetes {@code Added}): replace what is known for its key. */
  void onUpserted(DiscoveryRecord record);

  /** An object disappeared; unknown keys are ignored. */
  void onRemoved(DiscoveryKey key);

  /**
   * A model card's {@code runtime_config.taints} changed ({@code ModelTaintsUpdated}); patch a known card
   * only, ignore an unknown key. Backends may instead report the change as {@link #onUpserted}.
   */
  void onModelTaintsUpdated(ModelKey key, List<String> taints);

  /**
   * The complete current state after a reconnect or compaction, when changes may have been missed: the
   * listener diffs it against what it knows (e.g. with {@link DiscoveryDiff}), removing what is absent.
   */
  void onResync(List<DiscoveryRecord> records);

  /**
   * A problem that does not end the watch: a malformed entry that was skipped ({@link
   * DiscoveryDecodeException}, to be counted), or a lost stream that the backend is re-establishing
   * ({@link DiscoveryException.Kind#WATCH_INTERRUPTED}, followed by {@link #onResync} once it is back).
   */
  void onError(DiscoveryException error);
}
