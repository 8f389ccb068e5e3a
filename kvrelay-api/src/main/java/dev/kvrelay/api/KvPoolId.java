package dev.kvrelay.api;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a pool's identity, indexer domain plus DC (wire {@code KvPoolId}, which
 * adds {@code identity_version = }{@value #IDENTITY_VERSION}).
 *
 * <p>Text form {@code <cache>:<routing>/<dc 16 hex>}. Ordered as the catalog lists pools
 * ({@code producer.md} §4): cache digest bytes (unsigned), cache source, routing digest bytes,
 * routing source, then dc_id (unsigned); consistent with {@code equals}.
 *
 * @param indexerDomain cache semantics and routing scope
 * @param dcId the producing DC
 */
public record KvPoolId(IndexerDomainId indexerDomain, DcId dcId) implements Comparable<KvPoolId> {

  /** {@code POOL_IDENTITY_VERSION}: the only identity version. */
  public static final int IDENTITY_VERSION = 1;

  /** Trusted constructor. */
  public KvPoolId {
    Objects.requireNonNull(indexerDomain, "indexerDomain");
    Objects.requireNonNull(dcId, "dcId");
  }

  /** Immutable and thread-safe: the unvalidated wire shape ({@code identityVersion} is the uint32 bits). */
  public record Wire(int identityVersion, IndexerDomainId.@Nullable Wire indexerDomain, long dcId) {}

  /**
   * Validates a wire pool id in contract order: identity_version 0 is malformed and any other value
   * but 1 unsupported; then the indexer domain ({@link IndexerDomainId#fromWire(IndexerDomainId.Wire)}).
   * Every dc_id is valid.
   */
  public static KvPoolId fromWire(int identityVersion, IndexerDomainId.@Nullable Wire indexerDomain, long dcId)
      throws WireValidationException {
    return fromWire("pool_id", identityVersion, indexerDomain, dcId);
  }

  /** Validates a wire pool id; {@code null} (absent) is malformed. */
  public static KvPoolId fromWire(@Nullable Wire wire) throws WireValidationException {
    return fromWire("pool_id", wire);
  }

  static KvPoolId fromWire(String field, @Nullable Wire wire) throws WireValidationException {
    if (wire == null) {
      throw WireValidationException.malformed(field, "pool_id is missing");
    }
    return fromWire(field, wire.identityVersion(), wire.indexerDomain(), wire.dcId());
  }

  private static KvPoolId fromWire(
      String field, int identityVersion, IndexerDomainId.@Nullable Wire indexerDomain, long dcId)
      throws WireValidationException {
    if (identityVersion == 0) {
      throw WireValidationException.malformed(field + ".identity_version", "identity_version is 0");
    }
    if (identityVersion != IDENTITY_VERSION) {
      throw WireValidationException.unsupported(field + ".identity_version",
          "unsupported pool identity version " + Integer.toUnsignedString(identityVersion));
    }
    IndexerDomainId domain = IndexerDomainId.fromWire(field + ".indexer_domain", indexerDomain);
    return new KvPoolId(domain, DcId.of(dcId));
  }

  /** The wire shape of this value, stamped with {@link #IDENTITY_VERSION}. */
  public Wire toWire() {
    return new Wire(IDENTITY_VERSION, indexerDomain.toWire(), dcId.value());
  }

  @Override
  public int compareTo(KvPoolId other) {
    int c = indexerDomain.compareTo(other.indexerDomain);
    return c != 0 ? c : dcId.compareTo(other.dcId);
  }

  /** {@code <cache>:<routing>/<dc 16 hex>}. */
  @Override
  public String toString() {
    return indexerDomain + "/" + dcId;
  }
}
