/**
 * {@code kvrelay inspect}: grpcurl for the {@code dynamo.kvrelay.v1.KvEventRelay} contract (wan-grpc §1), with a CBI1
 * pool validator (ckf-cbi1 §6) and a prefix-depth query, as one self-contained picocli command.
 */
@NullMarked
package dev.kvrelay.launcher.inspect;

import org.jspecify.annotations.NullMarked;
