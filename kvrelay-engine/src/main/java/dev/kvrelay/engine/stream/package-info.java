/**
 * The subscriber side of the relay's streams: {@link dev.kvrelay.engine.wire.RelayStream}, shared by the
 * in-process API and the gRPC server, and the broadcast building blocks behind the catalog, readiness and
 * load streams.
 */
@NullMarked
package dev.kvrelay.engine.stream;

import dev.kvrelay.engine.wire.RelayStream;
import org.jspecify.annotations.NullMarked;
