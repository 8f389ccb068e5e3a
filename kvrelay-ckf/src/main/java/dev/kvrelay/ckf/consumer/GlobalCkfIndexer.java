package dev.kvrelay.ckf.consumer;

import dev.kvrelay.ckf.CkfAddressing;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread-safe: the consumer's shared CKF query storage — immutable manifest and addressing, the transposed
 * 16-lane table and its ready mask. Any number of threads may {@link #query} concurrently (each with its own
 * {@link GlobalCkfQueryResult}); each lane is written only by the one {@link GlobalCkfLaneIngestor} obtained
 * from {@link #claimLane(int)}.
 *
 * <p>A query captures the ready mask once (acquire) and never retries: it may finish against a lane that
 * was retired meanwhile, and may see a multi-bucket delta half applied (weak reads, ckf-cbi1.md §7).
 *
 * @param <P> the engine's pool identity type, compared with {@code equals}
 */
public final class GlobalCkfIndexer<P> {
  private final GlobalCkfManifest<P> manifest;
  private final TransposedCkfTable table;
  private final CkfAddressing addressing;
  private final int verificationWindow;
  private final AtomicInteger claimedLanes = new AtomicInteger();

  private GlobalCkfIndexer(GlobalCkfManifest<P> manifest, int verificationWindow) {
    this.manifest = manifest;
    this.verificationWindow = verificationWindow;
    this.table = TransposedCkfTable.of(manifest.format());
    this.addressing = CkfAddressing.of(manifest.format());
  }

  /** An indexer with the default verification window W = 2. */
  public static <P> GlobalCkfIndexer<P> create(GlobalCkfManifest<P> manifest) {
    return new GlobalCkfIndexer<>(Objects.requireNonNull(manifest, "manifest"),
        PrefixDepthSearch.DEFAULT_VERIFICATION_WINDOW);
  }

  /**
   * An indexer with verification window {@code verificationWindow}.
   *
   * @throws GlobalCkfBuildException {@code INVALID_VERIFICATION_WINDOW} outside {@code 1..=8}
   */
  public static <P> GlobalCkfIndexer<P> create(GlobalCkfManifest<P> manifest, int verificationWindow)
      throws GlobalCkfBuildException {
    if (!PrefixDepthSearch.isValidVerificationWindow(verificationWindow)) {
      throw new GlobalCkfBuildException(GlobalCkfBuildException.Reason.INVALID_VERIFICATION_WINDOW,
          "verification window must be in 1..=8, got " + verificationWindow);
    }
    return new GlobalCkfIndexer<>(Objects.requireNonNull(manifest, "manifest"), verificationWindow);
  }

  /** The immutable manifest. */
  public GlobalCkfManifest<P> manifest() {
    return manifest;
  }

  /** The transposed table (read-only to callers outside this package). */
  public TransposedCkfTable table() {
    return table;
  }

  /** The addressing of the manifest's format. */
  public CkfAddressing addressing() {
    return addressing;
  }

  /** The verification window W. */
  public int verificationWindow() {
    return verificationWindow;
  }

  /** The ready-lane mask (acquire load). */
  public int readyLanes() {
    return table.readyLanes();
  }

  /**
   * The single ingestor of {@code lane}; {@link GlobalCkfLaneIngestor#close()} releases the claim.
   *
   * @throws GlobalCkfBuildException {@code INVALID_LANE}, {@code UNCONFIGURED_LANE} or
   *     {@code LANE_ALREADY_CLAIMED}
   */
  public GlobalCkfLaneIngestor<P> claimLane(int lane) throws GlobalCkfBuildException {
    if (lane < 0 || lane >= TransposedCkfTable.LANES) {
      throw new GlobalCkfBuildException(GlobalCkfBuildException.Reason.INVALID_LANE,
          "lane " + lane + " is outside 0..16");
    }
    CkfLaneOwner<P> owner = manifest.owner(lane);
    if (owner == null) {
      throw new GlobalCkfBuildException(GlobalCkfBuildException.Reason.UNCONFIGURED_LANE,
          "lane " + lane + " is not configured");
    }
    int bit = 1 << lane;
    if ((claimedLanes.getAndUpdate(c -> c | bit) & bit) != 0) {
      throw new GlobalCkfBuildException(GlobalCkfBuildException.Reason.LANE_ALREADY_CLAIMED,
          "lane " + lane + " already has an ingestor");
    }
    return new GlobalCkfLaneIngestor<>(this, lane, owner);
  }

  void releaseLane(int lane) {
    int bit = 1 << lane;
    claimedLanes.getAndUpdate(c -> c & ~bit);
  }

  /** A reusable result bound to this indexer, for one querying thread. */
  public GlobalCkfQueryResult<P> newQueryResult() {
    return new GlobalCkfQueryResult<>(this);
  }

  /**
   * Per-lane prefix depths of a request: captures the ready mask once, masks it with the configured lanes,
   * and runs the prefix-depth search over {@code canonicalHashes} (the request's canonical sequence hashes,
   * position 0 first). Each position is prepared lazily, at most once per query. Allocates nothing unless
   * the result's position cache must grow to a longer request than any before.
   *
   * @param result a result from {@link #newQueryResult()} of this indexer, owned by the calling thread
   * @return {@link GlobalCkfQueryStatus#UNAVAILABLE} if no configured lane is ready
   * @throws IllegalArgumentException if {@code result} belongs to another indexer (a caller bug)
   */
  public GlobalCkfQueryStatus query(long[] canonicalHashes, GlobalCkfQueryResult<P> result) {
    return queryWithCapturedReady(canonicalHashes, table.readyLanes(), result);
  }

  GlobalCkfQueryStatus queryWithCapturedReady(
      long[] canonicalHashes, int capturedReady, GlobalCkfQueryResult<P> result) {
    if (result.indexer() != this) {
      throw new IllegalArgumentException("the query result belongs to another indexer");
    }
    int captured = capturedReady & manifest.configuredLanes();
    result.begin(captured);
    if (captured == 0) {
      return GlobalCkfQueryStatus.UNAVAILABLE;
    }
    result.search(canonicalHashes, captured, verificationWindow);
    return GlobalCkfQueryStatus.ANSWERED;
  }
}
