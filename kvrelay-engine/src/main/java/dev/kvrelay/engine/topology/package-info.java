/**
 * Serving topology and readiness (producer.md §5): the pure, single-threaded evaluator that turns
 * endpoint memberships, per-endpoint instance availability and catalog pool links into sorted
 * {@link dev.kvrelay.engine.wan.TopologyEntry} values, the revisioned {@link
 * dev.kvrelay.engine.topology.TopologyPublisher} state holder with slot-incarnation fencing, and the
 * consumer-side validator for received entries (wan-grpc.md §1.8).
 *
 * <p>No threads, no timers, no I/O: callers confine each publisher to one task.
 */
@NullMarked
package dev.kvrelay.engine.topology;

import dev.kvrelay.engine.wan.TopologyEntry;
import org.jspecify.annotations.NullMarked;
