package dev.kvrelay.engine.wan;

/**
 * Immutable and thread-safe: which pool attach precondition ({@code producer.md} §2.8) a descriptor breaks.
 * Checked in declaration order; the first violation wins.
 */
public enum DescriptorViolation {
  /** No registration: "pool {pool} requires at least one canonical model binding". */
  NO_REGISTRATIONS,
  /** Two registrations of one canonical model with different targets: "canonical model {m} resolves to conflicting targets in the same pool". */
  CONFLICTING_TARGETS,
  /** Two registrations of one canonical model with the same target: "duplicate canonical model registration {m}". */
  DUPLICATE_CANONICAL_MODEL,
  /** An alias equals a canonical model of the pool: "model alias {a} conflicts with canonical model {a} in the same pool". */
  ALIAS_IS_CANONICAL_MODEL,
  /** One alias claimed by two models: "model alias {a} is claimed by both {m1} and {m2} in the same pool". */
  ALIAS_CLAIMED_TWICE,
  /** No role: "pool requires at least one declared worker role". */
  NO_ROLES,
  /** A role repeats: "pool repeats declared worker role {role}". */
  REPEATED_ROLE
}
