/**
 * TCP request plane (plugins-wire §1): {@link dev.kvrelay.requestplane.tcp.TcpRequestPlaneClient} (the caller:
 * request frames on pooled connections, ACKs, the call-home response listener) and
 * {@link dev.kvrelay.requestplane.tcp.TcpRequestServer} (the relay's own endpoints: ACK, dial back, stream
 * JSON). The byte formats are {@link dev.kvrelay.requestplane.tcp.TwoPart},
 * {@link dev.kvrelay.requestplane.tcp.RequestFrame} and {@link dev.kvrelay.requestplane.tcp.AckFrame}; the JSON
 * shapes are {@link dev.kvrelay.requestplane.tcp.ControlJson}.
 */
@NullMarked
package dev.kvrelay.requestplane.tcp;

import org.jspecify.annotations.NullMarked;
