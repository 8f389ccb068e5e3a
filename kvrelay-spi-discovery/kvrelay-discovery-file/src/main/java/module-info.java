/**
 * Discovery backend {@code file}: Dynamo's single-machine file KV store ({@code DYN_DISCOVERY_BACKEND=file},
 * {@code DYN_FILE_KV}; {@code plugins-wire §8}), read through a {@link java.nio.file.WatchService} plus periodic
 * rescans, and the relay's own registrations written the way a Dynamo process writes them.
 */
module dev.kvrelay.discovery.file {
  requires transitive dev.kvrelay.spi.discovery;
  requires org.slf4j;
  requires static org.jspecify;

  exports dev.kvrelay.discovery.file;

  provides dev.kvrelay.spi.discovery.DiscoveryProvider with dev.kvrelay.discovery.file.FileDiscoveryProvider;
}
