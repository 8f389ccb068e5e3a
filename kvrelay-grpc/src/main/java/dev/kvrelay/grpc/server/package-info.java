/**
 * The WAN gRPC server of the relay: {@link dev.kvrelay.grpc.server.RelayGrpcServer} (listener, health,
 * reflection, keepalive, shutdown) and {@link dev.kvrelay.grpc.server.KvEventRelayService} (the six
 * {@code dynamo.kvrelay.v1.KvEventRelay} RPCs over a {@link dev.kvrelay.engine.RelayEngine}, wan-grpc.md §2),
 * pumping the engine's pull-based streams under gRPC flow control.
 */
@NullMarked
package dev.kvrelay.grpc.server;

import org.jspecify.annotations.NullMarked;
