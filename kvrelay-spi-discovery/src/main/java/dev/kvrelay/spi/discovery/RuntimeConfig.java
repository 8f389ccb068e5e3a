package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.json.JsonValue;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the {@code runtime_config} fields of a model card the relay reads ({@code
 * runtime-inputs.md} §4.2), with their defaults. u32 and u64 values are carried in {@code long}s; u64
 * values are unsigned.
 *
 * @param dataParallelStartRank first global DP rank of the worker (u32; default 0)
 * @param dataParallelSize number of DP ranks, 1..{@value #MAX_DATA_PARALLEL_SIZE} (default 1)
 * @param totalKvBlocks per-rank KV capacity (u64), if advertised
 * @param maxNumSeqs serving concurrency (u64), if advertised
 * @param maxNumBatchedTokens per-rank prefill token capacity (u64), if advertised
 * @param enableLocalIndexer whether the worker serves recovery queries (default true)
 * @param kvEventPublishingEnabled whether the engine publishes KV events, or {@code null} if omitted (legacy)
 * @param kvEventSourceMode the raw {@code kv_event_source_mode}, or {@code null} if omitted
 * @param kvStateEndpoint the endpoint whose event sources describe this worker's KV, or {@code null}
 *     (the serving endpoint)
 * @param enableEagle EAGLE speculative hashing (default false)
 * @param taints routing taints (default empty)
 */
public record RuntimeConfig(
    long dataParallelStartRank,
    int dataParallelSize,
    OptionalLong totalKvBlocks,
    OptionalLong maxNumSeqs,
    OptionalLong maxNumBatchedTokens,
    boolean enableLocalIndexer,
    @Nullable Boolean kvEventPublishingEnabled,
    @Nullable String kvEventSourceMode,
    @Nullable DynamoEndpointId kvStateEndpoint,
    boolean enableEagle,
    List<String> taints) {

  /** Largest accepted {@code data_parallel_size}. */
  public static final int MAX_DATA_PARALLEL_SIZE = 4096;

  /** Every field at its default ({@code runtime_config} absent or {@code {}}). */
  public static final RuntimeConfig DEFAULT = new RuntimeConfig(0, 1, OptionalLong.empty(), OptionalLong.empty(),
      OptionalLong.empty(), true, null, null, null, false, List.of());

  /**
   * @throws IllegalArgumentException if the start rank is not a u32, the size is outside
   *     1..{@value #MAX_DATA_PARALLEL_SIZE}, or the last rank would exceed u32
   */
  public RuntimeConfig {
    String problem = rankProblem(dataParallelStartRank, dataParallelSize);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    taints = List.copyOf(taints);
  }

  private static @Nullable String rankProblem(long start, long size) {
    if (start < 0 || start > KvEventSource.MAX_U32) {
      return "data_parallel_start_rank " + start + " is not a u32";
    }
    if (size < 1 || size > MAX_DATA_PARALLEL_SIZE) {
      return "data_parallel_size must be between 1 and " + MAX_DATA_PARALLEL_SIZE + ", got " + size;
    }
    if (start + size - 1 > KvEventSource.MAX_U32) {
      return "data_parallel_start_rank + data_parallel_size - 1 exceeds u32";
    }
    return null;
  }

  /** The last DP rank, {@code start + size - 1}. */
  public long lastRank() {
    return dataParallelStartRank + dataParallelSize - 1;
  }

  /** The decoded {@code kv_event_source_mode}. */
  public KvEventSourceMode eventSourceMode() {
    return KvEventSourceMode.of(kvEventSourceMode);
  }

  /** The hash format {@code enable_eagle} selects. */
  public KvQueryHashFormat hashFormat() {
    return KvQueryHashFormat.fromEnableEagle(enableEagle);
  }

  /** The kv-state endpoint, defaulting to {@code servingEndpoint}. */
  public DynamoEndpointId effectiveKvStateEndpoint(DynamoEndpointId servingEndpoint) {
    return kvStateEndpoint != null ? kvStateEndpoint : servingEndpoint;
  }

  /** This config with {@code taints} replaced. */
  public RuntimeConfig withTaints(List<String> newTaints) {
    return new RuntimeConfig(dataParallelStartRank, dataParallelSize, totalKvBlocks, maxNumSeqs, maxNumBatchedTokens,
        enableLocalIndexer, kvEventPublishingEnabled, kvEventSourceMode, kvStateEndpoint, enableEagle, newTaints);
  }

  /** Decodes a {@code runtime_config} object ({@code null} or JSON null ⇒ {@link #DEFAULT}). */
  static RuntimeConfig fromJson(@Nullable JsonValue json, String path) throws DiscoveryDecodeException {
    if (json == null || json.isNull()) {
      return DEFAULT;
    }
    Fields f = Fields.of(json, path);
    long start = f.u32("data_parallel_start_rank", 0);
    long size = f.u32("data_parallel_size", 1);
    String problem = rankProblem(start, size);
    if (problem != null) {
      throw Fields.invalid(f.field(size < 1 || size > MAX_DATA_PARALLEL_SIZE ? "data_parallel_size" : "data_parallel_start_rank"),
          problem);
    }
    DynamoEndpointId kvState = null;
    Fields ep = f.optionalObject("kv_state_endpoint");
    if (ep != null) {
      kvState = endpointId(ep);
    }
    return new RuntimeConfig(start, (int) size,
        f.optionalU64("total_kv_blocks"),
        f.optionalU64("max_num_seqs"),
        f.optionalU64("max_num_batched_tokens"),
        f.bool("enable_local_indexer", true),
        f.optionalBoolean("kv_event_publishing_enabled"),
        f.optionalString("kv_event_source_mode"),
        kvState,
        f.bool("enable_eagle", false),
        f.stringList("taints"));
  }

  /** Decodes an {@code EndpointId} object {@code {"namespace","component","name"}}. */
  static DynamoEndpointId endpointId(Fields f) throws DiscoveryDecodeException {
    String ns = f.requiredString("namespace");
    String comp = f.requiredString("component");
    String name = f.requiredString("name");
    try {
      return DynamoEndpointId.fromWire(ns, comp, name);
    } catch (WireValidationException e) {
      throw Fields.invalid(f.field(e.field().replace("endpoint", "name")), e.detail());
    }
  }
}
