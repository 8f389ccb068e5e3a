package dev.kvrelay.grpc.wire;

import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.view.RelayEnvelope;
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
    if (contractMarker != RelayEnvelope.CONTRACT_MARKER) {
      throw WireValidationException.malformed("contract_marker",
          "contract marker 0x" + Long.toHexString(contractMarker) + " is not 0x4b565231");
    }
    if (protocolVersion != RelayEnvelope.PROTOCOL_VERSION) {
      throw WireValidationException.malformed("protocol_version",
          "protocol version " + Integer.toUnsignedString(protocolVersion) + " is not 1");
    }
    if (relay == null) {
      throw WireValidationException.malformed("relay", "relay identity is missing");
    }
    return relay;
  }

  /** True if {@link #check()} passes. */
  public boolean valid() {
    return contractMarker == RelayEnvelope.CONTRACT_MARKER
        && protocolVersion == RelayEnvelope.PROTOCOL_VERSION
        && relay != null;
  }
}
