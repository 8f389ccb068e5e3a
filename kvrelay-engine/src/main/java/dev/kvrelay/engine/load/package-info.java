/**
 * Pool load aggregation and load windows (producer.md §6, wan-grpc.md §4.1/§4.2): a pure, single-threaded,
 * deterministic aggregator per pool fed with runtime configs and {@code kv_metrics} reports, and a window
 * sequencer producing {@code KvPoolLoadUpdate}-shaped values. Time is always passed in as {@code nowMs}.
 */
@NullMarked
package dev.kvrelay.engine.load;

import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import org.jspecify.annotations.NullMarked;
