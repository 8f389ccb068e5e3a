package dev.kvrelay.engine.view;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (stateless): the small local descriptor check of the catalog view. The api
 * value types already enforce their own wire rules (digests, identity version, CkfFormat, text, aliases);
 * this checks what a descriptor adds (wan-grpc.md §1.5). A fuller catalog validator is written separately.
 */
final class DescriptorCheck {
  private DescriptorCheck() {}

  /** Null if {@code d} is usable, else why it must be quarantined. */
  static @Nullable String problem(PoolDescriptor d) {
    if (d.producer() == null) {
      return "producer missing";
    }
    if (d.querySemantics() == null) {
      return "query_semantics missing";
    }
    if (d.poolRoles().isEmpty()) {
      return "pool_roles empty";
    }
    return null;
  }
}
