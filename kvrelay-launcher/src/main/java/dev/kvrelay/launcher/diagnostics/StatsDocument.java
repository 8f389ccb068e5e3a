package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonNull;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.ckf.producer.CkfProducerStats;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;

/**
 * Stateless and thread-safe: the {@code stats} answer (producer.md §7.5) built from {@link RelayEngineStats}.
 *
 * <pre>{@code
 * {"identity":{"dc_id","drt_instance_id","relay_incarnation"},
 *  "endpoints":[{"serving_endpoint":"ns.comp.ep","lifecycle","layout_generation","pool_id":{…},
 *                "cache_domain":{"kv_block_size","event_hash_format"},"models":[…],"aliases":[…],"roles":[…],
 *                "aggregation":{…}|null,"publication":{…}|null,"recovery":{…},"actor":{…}|null,
 *                "producer":{…}|null,"load":{…}}, …],
 *  "engine":{…every RelayEngineStats counter…}}
 * }</pre>
 *
 * <p>Endpoints are sorted by {@code serving_endpoint} (dotted display form, producer.md §7.5 decision), then by
 * path. Upstream members the engine does not expose are left out rather than invented: {@code model_artifact},
 * {@code membership_conflicts}, per-member block counts, {@code memory}, mailbox depth and wait times, recovery
 * rebuild timings. Every counter the engine does expose is written ({@code actor}, {@code producer},
 * {@code recovery}, {@code load}, {@code engine}: all components of the engine's records, snake_case).
 */
final class StatsDocument {
  private StatsDocument() {}

  static JsonObject of(String dcId, RelayEngineStats stats) {
    List<PoolStats> pools = new ArrayList<>(stats.pools());
    pools.sort(Comparator.comparing((PoolStats p) -> p.descriptor().servingEndpoint().dottedName())
        .thenComparing(p -> p.descriptor().servingEndpoint()));
    List<JsonValue> endpoints = new ArrayList<>(pools.size());
    for (PoolStats p : pools) {
      endpoints.add(endpoint(p));
    }
    return JsonObject.builder()
        .put("identity", identity(dcId, stats.identity()))
        .put("endpoints", new JsonArray(endpoints))
        .put("engine", RecordJson.of(stats, "identity", "pools"))
        .build();
  }

  static JsonObject identity(String dcId, RelayIdentity id) {
    return JsonObject.builder()
        .put("dc_id", dcId)
        .put("drt_instance_id", JsonNumber.ofUnsigned(id.drtInstanceId()))
        .put("relay_incarnation", JsonNumber.ofUnsigned(id.relayIncarnation()))
        .build();
  }

  /** The upstream lifecycle word for an actor state ({@code unknown}: the actor did not answer in time). */
  static String lifecycle(PoolStats p) {
    PoolStats.Actor a = p.actor();
    if (a == null) {
      return "unknown";
    }
    if (a.producer().fenced()) {
      return "fenced";
    }
    return switch (a.state()) {
      case RUNNING -> "active";
      case FENCED -> "fenced";
      case SHUT_DOWN -> "draining";
    };
  }

  private static JsonObject endpoint(PoolStats p) {
    KvPoolDescriptor d = p.descriptor();
    PoolStats.Actor a = p.actor();
    HexFormat hex = HexFormat.of();
    List<String> models = new ArrayList<>();
    TreeSet<String> aliases = new TreeSet<>();
    for (ModelRegistration r : d.registrations()) {
      models.add(r.canonicalModelId());
      aliases.addAll(r.aliases());
    }
    List<String> roles = new ArrayList<>();
    for (WorkerRole r : d.poolRoles()) {
      roles.add(r.text());
    }
    JsonObject.Builder b = JsonObject.builder()
        .put("serving_endpoint", d.servingEndpoint().dottedName())
        .put("lifecycle", lifecycle(p))
        .put("layout_generation", JsonNumber.ofUnsigned(d.producer().layoutGeneration()))
        .put("pool_id", JsonObject.builder()
            .put("dc_id", new JsonString(Long.toHexString(d.poolId().dcId().value())))
            .put("cache_semantics", hex.formatHex(d.poolId().indexerDomain().cacheSemantics().digest()))
            .put("routing_scope", hex.formatHex(d.poolId().indexerDomain().routingScope().digest()))
            .build())
        .put("cache_domain", JsonObject.builder()
            .put("kv_block_size", JsonNumber.of(d.querySemantics().kvBlockSize()))
            .put("event_hash_format", JsonNumber.of(d.querySemantics().hashFormat().wireValue()))
            .build())
        .put("models", JsonArray.ofStrings(models))
        .put("aliases", JsonArray.ofStrings(List.copyOf(aliases)))
        .put("roles", JsonArray.ofStrings(roles));
    if (a == null) {
      b.put("aggregation", JsonNull.INSTANCE).put("publication", JsonNull.INSTANCE);
    } else {
      CkfProducerStats c = a.producer();
      b.put("aggregation", JsonObject.builder()
          .put("member_count", JsonNumber.ofUnsigned(c.members()))
          .put("contribution_count", JsonNumber.ofUnsigned(c.mappings()))
          .put("unique_block_count", JsonNumber.ofUnsigned(c.uniqueCanonicalHashes()))
          .put("unknown_removals", JsonNumber.ofUnsigned(c.unknownRemovals()))
          .put("parent_not_found", JsonNumber.ofUnsigned(c.parentNotFound()))
          .put("capacity_failures", JsonNumber.ofUnsigned(c.capacityFailures()))
          .put("occupied_slot_count", JsonNumber.ofUnsigned(c.occupiedSlots()))
          .build());
      b.put("publication", JsonObject.builder()
          .put("sequence", JsonNumber.ofUnsigned(c.lastSequence()))
          .put("pending_events", JsonNumber.ofUnsigned(c.pendingEvents()))
          .put("publication_count", JsonNumber.ofUnsigned(c.publishedDeltas() + c.publishedSnapshots()))
          .put("unchanged_publication_count", JsonNumber.ofUnsigned(c.unchangedPublications()))
          .put("net_reverted_buckets", JsonNumber.ofUnsigned(c.netRevertedBuckets()))
          .put("reset_count", JsonNumber.of(0))
          .build());
    }
    b.put("recovery", RecordJson.of(p.recovery()));
    b.put("actor", a == null ? JsonNull.INSTANCE : RecordJson.of(a, "producer"));
    b.put("producer", a == null ? JsonNull.INSTANCE : RecordJson.of(a.producer()));
    b.put("load", RecordJson.of(p.load()));
    return b.build();
  }
}
