/**
 * {@code dynamo.kvrelay.v1.KvEventRelay} over gRPC: {@code RelayGrpcServer} serves a relay engine, and
 * {@code RelayGrpcClient} reads a remote relay as the same {@code RelaySource} a {@code RelayConsumer} takes.
 *
 * <p>Only the client and server packages are API. The wire codec ({@code dev.kvrelay.grpc.wire}) and the
 * generated messages and stubs ({@code dev.kvrelay.grpc.proto}) are the module's inside.
 */
// gRPC is in the API (see the requires below) and ships as automatic modules: consumers need them transitively.
@SuppressWarnings("requires-transitive-automatic")
module dev.kvrelay.grpc {
  requires org.slf4j;
  requires static transitive org.jspecify;
  requires static java.annotation; // @javax.annotation.Generated on the generated stubs
  requires transitive dev.kvrelay.engine;
  requires transitive io.grpc; // RelayGrpcClient.Builder#channel takes a ManagedChannel
  requires transitive io.grpc.services; // RelayGrpcServer#healthStatus answers a grpc.health.v1 status
  requires io.grpc.stub;
  requires io.grpc.protobuf;
  requires io.grpc.netty.shaded;
  requires com.google.protobuf;
  requires com.google.common;
  requires com.github.luben.zstd_jni;

  exports dev.kvrelay.grpc.client;
  exports dev.kvrelay.grpc.server;
}
