/**
 * Publication hubs: per pool generation, a mirror of the published CKF, the subscribers' bounded queues,
 * snapshot bootstrap, heartbeats, lag and progress terminations, and the registry that admits subscribers,
 * initializes hubs lazily and evicts idle ones (wan-grpc.md §2.4–§3.3).
 */
@NullMarked
package dev.kvrelay.engine.hub;

import org.jspecify.annotations.NullMarked;
