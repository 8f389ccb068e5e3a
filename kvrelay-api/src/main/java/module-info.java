/** Value types every kvrelay module shares, with their wire validation. */
module dev.kvrelay.api {
  requires static transitive org.jspecify;
  requires org.apache.commons.codec;
  requires com.fasterxml.jackson.core;

  exports dev.kvrelay.api;
  exports dev.kvrelay.api.plugin;
  exports dev.kvrelay.api.json;
}
