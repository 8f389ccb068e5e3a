package dev.kvrelay.api;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: derives a serving endpoint's {@link IndexerDomainId} from its model card
 * ({@code producer.md} §1.3).
 *
 * <ul>
 *   <li>cache_semantics = first 16 bytes of BLAKE3 over {@code framed(tag) ‖ selected ‖
 *       u32_le(kv_block_size) ‖ u16_le(hash format version)}; defaults {@code [model artifact]}
 *       ({@code source_path}, else {@code display_name}); an explicit {@code semantics} map replaces the
 *       defaults, never the block size or hash format.
 *   <li>routing_scope = first 16 bytes of BLAKE3 over {@code framed(tag) ‖ selected}; defaults
 *       {@code [namespace, component, endpoint]}; an explicit {@code routing_scope} map replaces them.
 *   <li>Each digest's source is {@link IdentitySource#EXPLICIT} iff its map is present.
 * </ul>
 */
public final class IndexerIdentity {

  private IndexerIdentity() {}

  /** The card's model artifact: {@code source_path} if set, else {@code display_name}. */
  public static String modelArtifact(@Nullable String sourcePath, String displayName) {
    return sourcePath != null ? sourcePath : Objects.requireNonNull(displayName, "displayName");
  }

  /**
   * Derives the domain from card values.
   *
   * @param sourcePath {@code source_path}, or {@code null} if absent
   * @param displayName {@code display_name}
   * @param kvCacheBlockSize {@code kv_cache_block_size}: a u32, must be &gt; 0
   * @param enableEagle {@code runtime_config.enable_eagle}
   * @param endpoint the serving endpoint
   * @param semantics {@code indexer_identity.semantics}, or {@code null}
   * @param routingScope {@code indexer_identity.routing_scope}, or {@code null}
   * @throws WireValidationException (malformed) if the block size is 0 ({@code ZeroBlockSize}: no
   *     domain) or not a u32, or the artifact name is missing or not valid UTF-8 text
   */
  public static IndexerDomainId fromCard(
      @Nullable String sourcePath,
      @Nullable String displayName,
      long kvCacheBlockSize,
      boolean enableEagle,
      DynamoEndpointId endpoint,
      @Nullable ExplicitIdentityMap semantics,
      @Nullable ExplicitIdentityMap routingScope)
      throws WireValidationException {
    if (kvCacheBlockSize == 0) {
      throw WireValidationException.malformed("kv_cache_block_size", "KV query block size must be nonzero");
    }
    if (kvCacheBlockSize < 0 || kvCacheBlockSize > 0xFFFF_FFFFL) {
      throw WireValidationException.malformed(
          "kv_cache_block_size", "kv_cache_block_size " + kvCacheBlockSize + " is not a u32");
    }
    String artifact = sourcePath != null ? sourcePath : displayName;
    if (artifact == null) {
      throw WireValidationException.malformed("display_name", "card has neither source_path nor display_name");
    }
    if (!WireText.isWellFormed(artifact)) {
      throw WireValidationException.malformed(
          sourcePath != null ? "source_path" : "display_name", "not valid UTF-8 text");
    }
    KvQuerySemantics query =
        new KvQuerySemantics((int) kvCacheBlockSize, KvQueryHashFormat.fromEnableEagle(enableEagle));
    return derive(artifact, query, endpoint, semantics, routingScope);
  }

  /**
   * Derives the domain from validated inputs.
   *
   * @throws IllegalArgumentException if {@code modelArtifact} is not well-formed UTF-16
   */
  public static IndexerDomainId derive(
      String modelArtifact,
      KvQuerySemantics query,
      DynamoEndpointId endpoint,
      @Nullable ExplicitIdentityMap semantics,
      @Nullable ExplicitIdentityMap routingScope) {
    return new IndexerDomainId(
        cacheSemantics(modelArtifact, query, semantics), routingScope(endpoint, routingScope));
  }

  /** The cache-semantics digest of a model artifact (defaults {@code [modelArtifact]}). */
  public static DigestIdentity cacheSemantics(
      String modelArtifact, KvQuerySemantics query, @Nullable ExplicitIdentityMap semantics) {
    if (!WireText.isWellFormed(modelArtifact)) {
      throw new IllegalArgumentException("model artifact is not well-formed UTF-16");
    }
    return cacheSemantics(List.of(modelArtifact), query, semantics);
  }

  /** The routing-scope digest of an endpoint (defaults {@code [namespace, component, endpoint]}). */
  public static DigestIdentity routingScope(DynamoEndpointId endpoint, @Nullable ExplicitIdentityMap routingScope) {
    return routingScope(List.of(endpoint.namespace(), endpoint.component(), endpoint.endpoint()), routingScope);
  }

  /** Cache semantics over an arbitrary default list. */
  static DigestIdentity cacheSemantics(
      List<String> defaults, KvQuerySemantics query, @Nullable ExplicitIdentityMap semantics) {
    byte[] material = IdentityMaterial.cacheSemantics(
        defaults, semantics, query.kvBlockSize(), query.hashFormat().wireValue());
    return new DigestIdentity(IdentityMaterial.digest16(material), sourceOf(semantics));
  }

  /** Routing scope over an arbitrary default list. */
  static DigestIdentity routingScope(List<String> defaults, @Nullable ExplicitIdentityMap routingScope) {
    byte[] material = IdentityMaterial.routingScope(defaults, routingScope);
    return new DigestIdentity(IdentityMaterial.digest16(material), sourceOf(routingScope));
  }

  private static IdentitySource sourceOf(@Nullable ExplicitIdentityMap map) {
    return map != null ? IdentitySource.EXPLICIT : IdentitySource.DEFAULT_DERIVED;
  }
}
