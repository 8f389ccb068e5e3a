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
}
