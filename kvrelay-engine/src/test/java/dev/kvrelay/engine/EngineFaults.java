package dev.kvrelay.engine;

import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadUpdate;

/**
 * Thread-safe (stateless): failure-injection entry points into a running {@link RelayEngine} for tests of other
 * modules (gRPC transport supervisor, publication errors over the wire). Ships in the engine test-jar; production
 * code never calls it.
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
   * Makes the engine that {@code builder} builds fail to publish its pool-load window {@code windowSequence}
   * (unsigned; the startup window 0 is never published through the ticker, so 0 and 1 both fail the first tick):
   * windows before it are published as usual, that one throws, the load ticker stops for good (the broadcasts keep
   * window {@code windowSequence - 1} as current) and {@link RelayEngine#terminated()} completes exceptionally with a
   * cause whose message names the load publisher (wan-grpc.md §4.1, §9 C33 and C45). If the engine is already
   * closing when the failure happens, the error is swallowed and {@code terminated()} completes normally.
   *
   * @return {@code builder}, to go on configuring and then {@link RelayEngine.Builder#build()}
   */
  public static RelayEngine.Builder failLoadPublisherAt(RelayEngine.Builder builder, long windowSequence) {
    return builder.loadPublisher(own -> new LoadPublisher() {
      @Override
      public void poolLoad(KvPoolLoadUpdate window) {
        if (Long.compareUnsigned(window.windowSequence(), windowSequence) >= 0) {
          throw new IllegalStateException(
              "injected load publisher failure at window " + Long.toUnsignedString(window.windowSequence()));
        }
        own.poolLoad(window);
      }

      @Override
      public void servingLoad(ServingLoadUpdate window) {
        own.servingLoad(window);
      }
    });
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
