package dev.kvrelay.api;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the indexer domain of a pool, i.e. its cache-semantics and routing-scope
 * digests (wire {@code IndexerDomainId}). Text form {@code <cache>:<routing>}; ordered by cache semantics, then
 * routing scope.
 *
 * @param cacheSemantics what the KV blocks mean (model artifact, block size, hash format)
 * @param routingScope where they may be routed (serving endpoint or explicit scope)
 */
public record IndexerDomainId(DigestIdentity cacheSemantics, DigestIdentity routingScope)
    implements Comparable<IndexerDomainId> {

  /** Trusted constructor. */
  public IndexerDomainId {
    Objects.requireNonNull(cacheSemantics, "cacheSemantics");
    Objects.requireNonNull(routingScope, "routingScope");
  }

  /** Immutable and thread-safe: the unvalidated wire shape; {@code null} sub-messages are absent. */
  public record Wire(DigestIdentity.@Nullable Wire cacheSemantics, DigestIdentity.@Nullable Wire routingScope) {}

  /**
   * Validates a wire domain: a missing domain, cache_semantics or routing_scope is malformed; then
   * each digest per {@link DigestIdentity#fromWire(byte[], int)}, cache semantics first.
   */
  public static IndexerDomainId fromWire(@Nullable Wire wire) throws WireValidationException {
    return fromWire("indexer_domain", wire);
  }

  static IndexerDomainId fromWire(String field, @Nullable Wire wire) throws WireValidationException {
    if (wire == null) {
      throw WireValidationException.malformed(field, "indexer_domain is missing");
    }
    if (wire.cacheSemantics() == null) {
      throw WireValidationException.malformed(field + ".cache_semantics", "cache_semantics is missing");
    }
    if (wire.routingScope() == null) {
      throw WireValidationException.malformed(field + ".routing_scope", "routing_scope is missing");
    }
    DigestIdentity cache = DigestIdentity.fromWire(
        field + ".cache_semantics.", wire.cacheSemantics().digest(), wire.cacheSemantics().source());
    DigestIdentity routing = DigestIdentity.fromWire(
        field + ".routing_scope.", wire.routingScope().digest(), wire.routingScope().source());
    return new IndexerDomainId(cache, routing);
  }

  /** The wire shape of this value. */
  public Wire toWire() {
    return new Wire(cacheSemantics.toWire(), routingScope.toWire());
  }

  /** True if either digest was derived from defaults rather than explicit material. */
  public boolean reliesOnDefaults() {
    return cacheSemantics.source() == IdentitySource.DEFAULT_DERIVED
        || routingScope.source() == IdentitySource.DEFAULT_DERIVED;
  }

  @Override
  public int compareTo(IndexerDomainId other) {
    int c = cacheSemantics.compareTo(other.cacheSemantics);
    return c != 0 ? c : routingScope.compareTo(other.routingScope);
  }

  /** {@code <cache 32 hex>:<routing 32 hex>}. */
  @Override
  public String toString() {
    return cacheSemantics.hex() + ":" + routingScope.hex();
  }
}
