package dev.kvrelay.grpc.wire;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wire.RelayEnvelope;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the envelope of a received top-level response (wan-grpc.md §1.1, §7.2), as
 * received.
 *
 * @param protocolVersion field 1 ({@code uint32} bits)
 * @param contractMarker field 127 ({@code fixed32}, unsigned, in a long)
 * @param relay field 2, {@code null} when absent
 */
public record WireEnvelope(int protocolVersion, long contractMarker, @Nullable RelayIdentity relay) {

  /**
   * Checks the envelope in the contract's order: marker, then protocol version, then relay presence.
   * Every failure is malformed (deployment skew or a broken peer: stop, do not retry).
   *
   * @return the relay identity
   * @throws WireValidationException (malformed) with field {@code contract_marker}, {@code protocol_version}
   *     or {@code relay}
   */
  public RelayIdentity check() throws WireValidationException {
    RelayEnvelope.EnvelopeFault fault = RelayEnvelope.check(contractMarker, protocolVersion, relay);
    if (fault != null || relay == null) {
      RelayEnvelope.EnvelopeFault f = fault == null ? RelayEnvelope.EnvelopeFault.RELAY_MISSING : fault;
      throw WireValidationException.malformed(f.field(), "envelope check failed: " + f + " (marker 0x"
          + Long.toHexString(contractMarker) + ", protocol version " + Integer.toUnsignedString(protocolVersion) + ")");
    }
    return relay;
  }

  /** True if {@link #check()} passes. */
  public boolean valid() {
    return RelayEnvelope.check(contractMarker, protocolVersion, relay) == null;
  }
}
