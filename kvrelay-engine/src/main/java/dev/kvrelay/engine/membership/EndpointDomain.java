package dev.kvrelay.engine.membership;

import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvQuerySemantics;

/**
 * Immutable and thread-safe: an endpoint's resolved indexer domain. Equality compares the id, the block
 * size and the hash format ({@code producer.md} §2.2 step 3).
 *
 * @param id cache semantics and routing scope digests
 * @param querySemantics block size and hash format published in the pool descriptor
 */
public record EndpointDomain(IndexerDomainId id, KvQuerySemantics querySemantics) {}
