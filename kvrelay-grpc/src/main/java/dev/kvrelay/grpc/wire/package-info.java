/**
 * The one mapping between the engine's values and the {@code dynamo.kvrelay.v1} protobuf messages
 * ({@link dev.kvrelay.grpc.wire.WireCodec}), shared by the gRPC server and the client. Encoding takes
 * trusted engine values; decoding yields the engine's unvalidated consumer inputs (raw enum numbers and
 * absent sub-messages preserved), which the existing engine validators then check.
 */
@NullMarked
package dev.kvrelay.grpc.wire;

import org.jspecify.annotations.NullMarked;
