/**
 * The {@code etcd} discovery backend on jetcd: prefix GET + WATCH of the {@code v1/} buckets, resume from the
 * last revision, a full resync after compaction, and the relay's own lease-bound registration.
 */
module dev.kvrelay.discovery.etcd {
  requires transitive dev.kvrelay.spi.discovery;
  requires static org.jspecify;
  requires org.slf4j;
  requires jetcd.core;
  requires jetcd.common;
  requires io.grpc;
  requires io.grpc.stub;
  requires io.netty.handler;

  exports dev.kvrelay.discovery.etcd;

  provides dev.kvrelay.spi.discovery.DiscoveryProvider with dev.kvrelay.discovery.etcd.EtcdDiscoveryProvider;
}
