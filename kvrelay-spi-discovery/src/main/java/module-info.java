/**
 * The discovery service-provider interface: the records discovery carries (endpoint instances, model
 * cards, KV event sources and channels), their JSON codec, the watch contract, the provider registry and
 * the in-memory provider {@code mem}, and the file-mode scope ({@code --sources-file}) parser and poller.
 */
module dev.kvrelay.spi.discovery {
  requires org.slf4j;
  requires transitive dev.kvrelay.api;
  requires static org.jspecify;

  exports dev.kvrelay.spi.discovery;
  exports dev.kvrelay.spi.discovery.sources;

  uses dev.kvrelay.spi.discovery.DiscoveryProvider;

  provides dev.kvrelay.spi.discovery.DiscoveryProvider with dev.kvrelay.spi.discovery.InMemoryDiscoveryProvider;
}
