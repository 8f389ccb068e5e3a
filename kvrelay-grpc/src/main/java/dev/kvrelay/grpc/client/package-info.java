/**
 * The Java client of {@code dynamo.kvrelay.v1.KvEventRelay}: {@link dev.kvrelay.grpc.client.RelayGrpcClient}
 * is a {@link dev.kvrelay.engine.wan.RelaySource} over one HTTP/2 channel (plaintext, or TLS with an optional
 * client certificate for a relay behind a TLS sidecar), so the engine's consumer
 * views ({@code RelayConsumer}) read a remote relay exactly like an in-process engine. Every stream uses manual
 * inbound flow control (a message is requested only when the consumer has room for it), decodes with
 * {@link dev.kvrelay.grpc.wire.WireCodec}, and turns the call's status and {@code kv-relay-error-reason} trailer
 * into a typed {@link dev.kvrelay.api.RelayException} with {@link dev.kvrelay.grpc.wire.RelayStatus}.
 */
@NullMarked
package dev.kvrelay.grpc.client;

import org.jspecify.annotations.NullMarked;
