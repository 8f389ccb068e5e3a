/**
 * The embeddable relay engine: membership → pools → actors → projections → publication hubs, and the
 * consumer views. Pure Java; plugins arrive through the discovery and event-plane SPIs.
 */
module dev.kvrelay.engine {
  requires static transitive org.jspecify;
  requires transitive dev.kvrelay.ckf;
  requires transitive dev.kvrelay.spi.discovery;
  requires transitive dev.kvrelay.spi.eventplane;

  exports dev.kvrelay.engine.membership;
  exports dev.kvrelay.engine.topology;
  exports dev.kvrelay.engine.load;
  exports dev.kvrelay.engine.catalog;
  exports dev.kvrelay.engine;
  exports dev.kvrelay.engine.view;
  exports dev.kvrelay.engine.actor;
  exports dev.kvrelay.engine.stream;
  exports dev.kvrelay.engine.hub;
  exports dev.kvrelay.engine.recovery;
}
