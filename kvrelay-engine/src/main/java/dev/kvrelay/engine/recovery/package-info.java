/**
 * Per-source recovery (producer.md §3.6, runtime-inputs.md §6): event-id cursors, gap detection, buffered live
 * events, worker KV queries over the request plane with timeouts and retries, tree-dump rank replacement and
 * lifecycle resets, feeding the pool actor.
 */
@NullMarked
package dev.kvrelay.engine.recovery;

import org.jspecify.annotations.NullMarked;
