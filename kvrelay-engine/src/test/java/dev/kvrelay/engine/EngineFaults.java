package dev.kvrelay.engine;

/**
 * Thread-safe (stateless): failure-injection entry points into a running {@link RelayEngine} for tests of other
 * modules (the gRPC transport supervisor). Ships in the engine test-jar; production code never calls it.
 */
public final class EngineFaults {
  private EngineFaults() {}

  /**
   * Ends {@code engine} the way a terminal host failure does (for example the load window publisher failing):
   * {@link RelayEngine#terminated()} completes exceptionally with {@code cause}.
   */
  public static void failHost(RelayEngine engine, Throwable cause) {
    engine.fail(cause);
  }

  /**
   * Every later pool-stream snapshot chunk encode of {@code engine} with chunk index {@code >= fromChunk} throws
   * (encoder panic ⇒ INTERNAL, the generation is fenced).
   */
  public static void panicSnapshotEncoder(RelayEngine engine, int fromChunk) {
    dev.kvrelay.engine.hub.HubFaults.panicSnapshotEncoder(engine.hubs(), fromChunk);
  }

  /** Every later pool-stream snapshot chunk encode of {@code engine} is cancelled (⇒ UNAVAILABLE, no fence). */
  public static void cancelSnapshotEncoder(RelayEngine engine) {
    dev.kvrelay.engine.hub.HubFaults.cancelSnapshotEncoder(engine.hubs());
  }

  /** Back to the real snapshot encoder. */
  public static void restoreSnapshotEncoder(RelayEngine engine) {
    dev.kvrelay.engine.hub.HubFaults.restoreSnapshotEncoder(engine.hubs());
  }

  /**
   * Offers the live hub of {@code pool} a delta with a sequence gap (⇒ INVALID_PUBLICATION, fence); false when the
   * pool has no initialized hub.
   */
  public static boolean injectPublicationGap(RelayEngine engine, dev.kvrelay.api.KvPoolId pool) {
    return dev.kvrelay.engine.hub.HubFaults.injectSequenceGap(pool, engine.hubs());
  }
}
