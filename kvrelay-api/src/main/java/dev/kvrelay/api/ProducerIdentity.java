package dev.kvrelay.api;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the frozen subscription key of one pool generation (wire
 * {@code ProducerIdentity}).
 *
 * <p>Equality covers all 13 dimensions of the contract's ProducerKey: identity_version (always
 * {@value KvPoolId#IDENTITY_VERSION}), both digests and both sources, dc_id, producer_incarnation,
 * layout_generation and the five {@link CkfFormat} fields. Descriptor metadata (registrations, roles,
 * endpoint, query semantics) is not part of it.
 *
 * @param poolId the pool
 * @param producerIncarnation the owning Relay's incarnation (unsigned)
 * @param layoutGeneration the registry's attach counter (unsigned), never 0
 * @param ckfFormat the filter layout
 */
public record ProducerIdentity(KvPoolId poolId, long producerIncarnation, long layoutGeneration, CkfFormat ckfFormat) {

  /**
   * Trusted constructor.
   *
   * @throws IllegalArgumentException if {@code layoutGeneration} is 0
   */
  public ProducerIdentity {
    Objects.requireNonNull(poolId, "poolId");
    Objects.requireNonNull(ckfFormat, "ckfFormat");
    if (layoutGeneration == 0) {
      throw new IllegalArgumentException("layout_generation must not be 0");
    }
  }

  /** Immutable and thread-safe: the unvalidated wire shape; {@code null} sub-messages are absent. */
  public record Wire(
      KvPoolId.@Nullable Wire poolId,
      long producerIncarnation,
      long layoutGeneration,
      CkfFormat.@Nullable Wire ckfFormat) {}

  /**
   * Validates a wire producer key in the contract's order ({@code wan-grpc.md} §1.8): pool_id
   * (missing ⇒ malformed; identity_version; indexer domain presence; digest lengths; sources), then
   * layout_generation 0 ⇒ malformed, then ckf_format (missing or a zero field ⇒ malformed; fixed fields ⇒
   * unsupported; bucket count too large ⇒ unsupported, not a power of two ⇒ malformed). A missing key
   * is malformed.
   */
  public static ProducerIdentity fromWire(@Nullable Wire wire) throws WireValidationException {
    if (wire == null) {
      throw WireValidationException.malformed("producer", "producer identity is missing");
    }
    KvPoolId poolId = KvPoolId.fromWire("pool_id", wire.poolId());
    if (wire.layoutGeneration() == 0) {
      throw WireValidationException.malformed("layout_generation", "layout_generation must not be 0");
    }
    CkfFormat format = CkfFormat.fromWire(wire.ckfFormat());
    return new ProducerIdentity(poolId, wire.producerIncarnation(), wire.layoutGeneration(), format);
  }

  /** The wire shape of this key. */
  public Wire toWire() {
    return new Wire(poolId.toWire(), producerIncarnation, layoutGeneration, ckfFormat.toWire());
  }

  @Override
  public String toString() {
    return "ProducerIdentity[pool=" + poolId + ", incarnation=" + Long.toUnsignedString(producerIncarnation)
        + ", generation=" + Long.toUnsignedString(layoutGeneration) + ", " + ckfFormat + "]";
  }
}
