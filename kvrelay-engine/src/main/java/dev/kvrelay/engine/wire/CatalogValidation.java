package dev.kvrelay.engine.wire;

import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.List;

/**
 * Immutable and thread-safe: a consumer's reading of one received catalog snapshot.
 *
 * @param usable the descriptors that passed validation, in received order (an unmodifiable copy)
 * @param excluded the quarantined and rejected descriptors with reasons, in received order (an unmodifiable copy)
 */
public record CatalogValidation(List<KvPoolDescriptor> usable, List<ExcludedDescriptor> excluded) {

  /** Trusted constructor. */
  public CatalogValidation {
    usable = List.copyOf(usable);
    excluded = List.copyOf(excluded);
  }
}
