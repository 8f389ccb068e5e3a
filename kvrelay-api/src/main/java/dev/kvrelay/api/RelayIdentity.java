package dev.kvrelay.api;

import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Immutable and thread-safe: who publishes, i.e. the backing runtime's instance id and this Relay
 * start's incarnation (wire {@code RelayIdentity}, two {@code fixed64}). Both are unsigned 64-bit
 * values; every value is valid on the wire, including an incarnation of 0 (upstream has no guard;
 * consumers only compare it for equality).
 *
 * @param drtInstanceId the runtime connection id, constant for the process lifetime
 * @param relayIncarnation random per {@code start}, top bit cleared
 */
public record RelayIdentity(long drtInstanceId, long relayIncarnation) {

  /** Mask applied to the 64 random bits of a new incarnation (63-bit, non-negative as a {@code long}). */
  public static final long INCARNATION_MASK = 0x7FFF_FFFF_FFFF_FFFFL;

  /**
   * A new Relay incarnation: 64 random bits {@code & 0x7FFF_FFFF_FFFF_FFFF}. Pass a
   * {@link java.security.SecureRandom} in production (the OS RNG, as upstream); 0 is a legal result.
   */
  public static long newRelayIncarnation(RandomGenerator random) {
    Objects.requireNonNull(random, "random");
    return random.nextLong() & INCARNATION_MASK;
  }

  /** The identity of a Relay start: the given runtime id and a fresh incarnation. */
  public static RelayIdentity start(long drtInstanceId, RandomGenerator random) {
    return new RelayIdentity(drtInstanceId, newRelayIncarnation(random));
  }

  @Override
  public String toString() {
    return "RelayIdentity[drt_instance_id=" + Long.toUnsignedString(drtInstanceId)
        + ", relay_incarnation=" + Long.toUnsignedString(relayIncarnation) + "]";
  }
}
