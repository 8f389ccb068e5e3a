/**
 * The embeddable relay engine: membership → pools → actors → projections → publication hubs, and the
 * consumer. Pure Java; plugins arrive through the discovery and event-plane SPIs.
 *
 * <p>The API is four packages: the engine itself ({@code dev.kvrelay.engine}), the consumer an embedder reads
 * relays with ({@code dev.kvrelay.engine.consumer}), the WAN values an embedder reads on either side — catalog,
 * readiness, load entries, the opaque relay-source handle — ({@code dev.kvrelay.engine.wan}) and the counters
 * {@code stats()} returns ({@code dev.kvrelay.engine.stats}). The messages and streams a transport carries and
 * the consumer-side catalog validator ({@code dev.kvrelay.engine.wire}) are transport plumbing, exported only to
 * the gRPC module and the launcher (whose {@code inspect} command reads streams and validates catalogs as a
 * consumer does). Every other package is the engine's inside and is not exported.
 */
// The qualified export's readers are not on the path when the engine compiles: javac's "module not found" is expected.
@SuppressWarnings("module")
module dev.kvrelay.engine {
  requires static transitive org.jspecify;
  requires transitive dev.kvrelay.ckf;
  requires transitive dev.kvrelay.spi.discovery;
  requires transitive dev.kvrelay.spi.eventplane;
  requires org.slf4j;

  exports dev.kvrelay.engine;
  exports dev.kvrelay.engine.consumer;
  exports dev.kvrelay.engine.wan;
  exports dev.kvrelay.engine.stats;
  exports dev.kvrelay.engine.wire to dev.kvrelay.grpc, dev.kvrelay.launcher;
}
