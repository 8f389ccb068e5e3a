package dev.kvrelay.engine.wire;

import dev.kvrelay.api.RelayIdentity;
import org.jspecify.annotations.Nullable;

/** Immutable and thread-safe: the envelope constants and checks every received message passes first (wan-grpc.md §7.2). */
public final class RelayEnvelope {
  /** {@code RELAY_CONTRACT_MARKER}: ASCII "KVR1" read big-endian (fixed32, unsigned). */
  public static final long CONTRACT_MARKER = 0x4B56_5231L;
  /** {@code RELAY_PROTOCOL_VERSION}. */
  public static final int PROTOCOL_VERSION = 1;

  private RelayEnvelope() {}

  /**
   * Checks marker, then protocol version, then relay presence, in that order; null when all pass.
   *
   * @param contractMarker the received fixed32 marker (compared on its low 32 bits only if the high bits are 0)
   */
  public static @Nullable EnvelopeFault check(long contractMarker, int protocolVersion, @Nullable RelayIdentity relay) {
    if (contractMarker != CONTRACT_MARKER) {
      return EnvelopeFault.CONTRACT_MISMATCH;
    }
    if (protocolVersion != PROTOCOL_VERSION) {
      return EnvelopeFault.PROTOCOL_VERSION_MISMATCH;
    }
    if (relay == null) {
      return EnvelopeFault.RELAY_MISSING;
    }
    return null;
  }

  /** Immutable: the envelope check that failed, with the wire field it concerns. */
  public enum EnvelopeFault {
    /** {@code contract_marker} is not {@link #CONTRACT_MARKER}. */
    CONTRACT_MISMATCH("contract_marker"),
    /** {@code protocol_version} is not {@link #PROTOCOL_VERSION}. */
    PROTOCOL_VERSION_MISMATCH("protocol_version"),
    /** {@code relay} is absent. */
    RELAY_MISSING("relay");

    private final String field;

    EnvelopeFault(String field) {
      this.field = field;
    }

    /** The wire field name. */
    public String field() {
      return field;
    }
  }
}
