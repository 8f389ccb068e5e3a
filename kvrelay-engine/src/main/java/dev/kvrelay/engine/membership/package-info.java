/**
 * Membership projection ({@code producer.md} §2.1–§2.5): discovery model cards → one {@link
 * dev.kvrelay.engine.membership.EndpointMembership} per serving endpoint, the PoolId collision pass, and the
 * KV-source view that decides whether a membership may materialize a pool. Pure, single-threaded and
 * deterministic: no threads, no timers, no I/O.
 */
@NullMarked
package dev.kvrelay.engine.membership;

import org.jspecify.annotations.NullMarked;
