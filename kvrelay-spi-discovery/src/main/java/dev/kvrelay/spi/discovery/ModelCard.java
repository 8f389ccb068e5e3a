package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.ExplicitIdentityMap;
import dev.kvrelay.api.IndexerIdentity;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the fields of a model deployment card ({@code card_json}) the relay reads
 * ({@code producer.md} §2.1, {@code runtime-inputs.md} §4.1); everything else stays in the raw card.
 *
 * @param displayName {@code display_name} (required): the canonical model id; validity as a model id is
 *     judged by the projection, not here
 * @param sourcePath {@code source_path}, or {@code null}
 * @param kvCacheBlockSize {@code kv_cache_block_size} (required, u32; 0 decodes and is rejected later as
 *     {@code ZeroBlockSize})
 * @param aliases {@code aliases} (default empty), as listed
 * @param workerType {@code worker_type} parsed by {@link WorkerRole#parseWorkerType}; {@link
 *     WorkerRole#LEGACY} when absent or null
 * @param needs {@code needs}: OR of AND-lists of worker types (DNF; default empty)
 * @param modelType the raw {@code model_type} JSON, or {@code null}; see {@link #supportsPrefill()}
 * @param lora {@code lora}, or {@code null} for a base card
 * @param indexerSemantics {@code indexer_identity.semantics}, or {@code null}
 * @param indexerRoutingScope {@code indexer_identity.routing_scope}, or {@code null}
 * @param runtimeConfig {@code runtime_config} (default {@link RuntimeConfig#DEFAULT})
 */
public record ModelCard(
    String displayName,
    @Nullable String sourcePath,
    long kvCacheBlockSize,
    List<String> aliases,
    WorkerRole workerType,
    List<List<WorkerRole>> needs,
    @Nullable JsonValue modelType,
    @Nullable Lora lora,
    @Nullable ExplicitIdentityMap indexerSemantics,
    @Nullable ExplicitIdentityMap indexerRoutingScope,
    RuntimeConfig runtimeConfig) {

  /** The {@code ModelType::Prefill} flag bit (1 &lt;&lt; 4). */
  public static final int MODEL_TYPE_PREFILL = 1 << 4;

  private static final String[] MODEL_TYPE_FLAG_NAMES = {
    "chat", "completions", "embedding", "tensorbased", "prefill", "images", "audios", "videos"
  };

  /**
   * @throws IllegalArgumentException if the block size is not a u32
   */
  public ModelCard {
    if (kvCacheBlockSize < 0 || kvCacheBlockSize > KvEventSource.MAX_U32) {
      throw new IllegalArgumentException("kv_cache_block_size " + kvCacheBlockSize + " is not a u32");
    }
    aliases = List.copyOf(aliases);
    List<List<WorkerRole>> copy = new ArrayList<>(needs.size());
    for (List<WorkerRole> conjunction : needs) {
      copy.add(List.copyOf(conjunction));
    }
    needs = List.copyOf(copy);
  }

  /**
   * Immutable and thread-safe: a LoRA adapter card's {@code lora} object.
   *
   * @param name the runtime adapter name (also the hash salt)
   * @param maxGpuLoraCount {@code max_gpu_lora_count} (u32), if given
   */
  public record Lora(String name, OptionalLong maxGpuLoraCount) {}

  /** The model artifact: {@code source_path}, else {@code display_name} ({@link IndexerIdentity#modelArtifact}). */
  public String modelArtifact() {
    return IndexerIdentity.modelArtifact(sourcePath, displayName);
  }

  /** The query hash format: EAGLE iff {@code runtime_config.enable_eagle}. */
  public KvQueryHashFormat hashFormat() {
    return runtimeConfig.hashFormat();
  }

  /** True if the card has a {@code lora} object. */
  public boolean isAdapter() {
    return lora != null;
  }

  /**
   * The {@code model_type} flag bits, or empty if absent or not decodable.
   *
   * <p>Decision ({@code producer.md} §2.1 box "decoding {@code model_type}"): {@code model_type} is
   * upstream's bitflags {@code ModelType} (Chat 1, Completions 2, Embedding 4, TensorBased 8, Prefill 16,
   * Images 32, Audios 64, Videos 128). Accepted encodings: the bitflags 2 text form {@code "Chat |
   * Prefill"} (flag names case-insensitive, {@code 0x}-hex terms, empty string = no flags); an integer
   * 0..255; the bitflags 1 object {@code {"bits": n}}; an array of flag names. Anything else is
   * undecodable, which {@link #supportsPrefill()} treats as "does not support prefill".
   */
  public OptionalInt modelTypeFlags() {
    return modelType == null ? OptionalInt.empty() : decodeModelType(modelType);
  }

  /** True if {@code model_type} decodes and has the Prefill flag; absent or undecodable ⇒ false. */
  public boolean supportsPrefill() {
    OptionalInt flags = modelTypeFlags();
    return flags.isPresent() && (flags.getAsInt() & MODEL_TYPE_PREFILL) != 0;
  }

  /** True if {@code model_type} is present but none of the accepted encodings. */
  public boolean hasUndecodableModelType() {
    return modelType != null && modelTypeFlags().isEmpty();
  }

  /**
   * {@code normalize_legacy_prefill_topology} ({@code producer.md} §2.1): a legacy card (no {@code
   * worker_type}) whose {@code model_type} supports prefill becomes a prefill card, needing
   * {@code [[decode]]} if it declared no needs. Any other card is returned unchanged.
   */
  public ModelCard normalizedLegacyPrefill() {
    if (workerType != WorkerRole.LEGACY || !supportsPrefill()) {
      return this;
    }
    List<List<WorkerRole>> newNeeds = needs.isEmpty() ? List.of(List.of(WorkerRole.DECODE)) : needs;
    return new ModelCard(displayName, sourcePath, kvCacheBlockSize, aliases, WorkerRole.PREFILL, newNeeds, modelType,
        lora, indexerSemantics, indexerRoutingScope, runtimeConfig);
  }

  /** This card with {@code runtime_config.taints} replaced. */
  public ModelCard withTaints(List<String> taints) {
    return new ModelCard(displayName, sourcePath, kvCacheBlockSize, aliases, workerType, needs, modelType, lora,
        indexerSemantics, indexerRoutingScope, runtimeConfig.withTaints(taints));
  }

  /**
   * Decodes a {@code card_json} object. Unknown fields are ignored; absent and JSON null are the same.
   *
   * @throws DiscoveryDecodeException naming the offending field relative to the card
   */
  public static ModelCard fromJson(JsonObject card) throws DiscoveryDecodeException {
    Fields f = Fields.of(card, "");
    String displayName = f.requiredString("display_name");
    String sourcePath = f.optionalString("source_path");
    long blockSize = f.requiredU32("kv_cache_block_size");
    List<String> aliases = f.stringList("aliases");
    WorkerRole workerType = workerType("worker_type", f.optionalString("worker_type"));
    List<List<WorkerRole>> needs = needs(f);
    JsonValue modelType = f.raw("model_type");
    Lora lora = null;
    Fields l = f.optionalObject("lora");
    if (l != null) {
      lora = new Lora(l.requiredString("name"), l.optionalU32("max_gpu_lora_count"));
    }
    ExplicitIdentityMap semantics = null;
    ExplicitIdentityMap routingScope = null;
    Fields identity = f.optionalObject("indexer_identity");
    if (identity != null) {
      semantics = explicitMap(identity, "semantics");
      routingScope = explicitMap(identity, "routing_scope");
    }
    RuntimeConfig runtimeConfig = RuntimeConfig.fromJson(f.raw("runtime_config"), "runtime_config");
    return new ModelCard(displayName, sourcePath, blockSize, aliases, workerType, needs, modelType, lora, semantics,
        routingScope, runtimeConfig);
  }

  private static WorkerRole workerType(String field, @Nullable String text) throws DiscoveryDecodeException {
    try {
      return WorkerRole.parseWorkerType(text);
    } catch (WireValidationException e) {
      throw Fields.invalid(field, e.detail());
    }
  }

  private static List<List<WorkerRole>> needs(Fields f) throws DiscoveryDecodeException {
    JsonArray outer = f.optionalArray("needs");
    if (outer == null) {
      return List.of();
    }
    List<List<WorkerRole>> needs = new ArrayList<>(outer.size());
    for (int i = 0; i < outer.size(); i++) {
      String field = "needs[" + i + "]";
      JsonValue inner = outer.get(i);
      if (!(inner instanceof JsonArray jsonArray)) {
        throw Fields.wrongType(field, "an array of worker types", inner);
      }
      List<WorkerRole> conjunction = new ArrayList<>();
      List<String> names = Fields.strings(field, jsonArray);
      for (int j = 0; j < names.size(); j++) {
        conjunction.add(workerType(field + "[" + j + "]", names.get(j)));
      }
      needs.add(conjunction);
    }
    return needs;
  }

  /**
   * Decision: an invalid explicit identity map (constraints of {@code producer.md} §1.3) makes the card
   * malformed, like any other field that does not decode; duplicate keys are already rejected by the
   * JSON reader.
   */
  private static @Nullable ExplicitIdentityMap explicitMap(Fields identity, String name) throws DiscoveryDecodeException {
    Fields map = identity.optionalObject(name);
    if (map == null) {
      return null;
    }
    List<Map.Entry<String, String>> entries = new ArrayList<>();
    for (Map.Entry<String, JsonValue> e : map.object().members().entrySet()) {
      if (!(e.getValue() instanceof JsonString)) {
        throw Fields.wrongType(map.field(e.getKey()), "a string", e.getValue());
      }
      entries.add(new SimpleImmutableEntry<>(e.getKey(), ((JsonString) e.getValue()).value()));
    }
    try {
      return ExplicitIdentityMap.fromEntries(identity.field(name), entries);
    } catch (WireValidationException e) {
      throw Fields.invalid(identity.field(name), e.detail());
    }
  }

  private static OptionalInt decodeModelType(JsonValue value) {
    if (value instanceof JsonString jsonString) {
      return flagsFromText(jsonString.value());
    }
    if (value instanceof JsonNumber jsonNumber) {
      return flagsFromNumber(jsonNumber);
    }
    if (value instanceof JsonObject o) {
      JsonValue bits = o.get("bits");
      if (o.size() == 1 && bits instanceof JsonNumber jsonNumber) {
        return flagsFromNumber(jsonNumber);
      }
      return OptionalInt.empty();
    }
    if (value instanceof JsonArray jsonArray) {
      int flags = 0;
      for (JsonValue e : jsonArray.elements()) {
        if (!(e instanceof JsonString jsonString)) {
          return OptionalInt.empty();
        }
        int bit = flagBit(jsonString.value().trim());
        if (bit < 0) {
          return OptionalInt.empty();
        }
        flags |= bit;
      }
      return OptionalInt.of(flags);
    }
    return OptionalInt.empty();
  }

  private static OptionalInt flagsFromNumber(JsonNumber n) {
    try {
      int v = n.asInt();
      return v >= 0 && v <= 0xFF ? OptionalInt.of(v) : OptionalInt.empty();
    } catch (JsonException e) {
      return OptionalInt.empty();
    }
  }

  private static OptionalInt flagsFromText(String text) {
    String trimmed = text.trim();
    if (trimmed.isEmpty()) {
      return OptionalInt.of(0);
    }
    int flags = 0;
    for (String raw : trimmed.split("\\|", -1)) {
      String term = raw.trim();
      int bits;
      if (term.startsWith("0x") || term.startsWith("0X")) {
        bits = hexFlags(term.substring(2));
      } else {
        bits = flagBit(term);
      }
      if (bits < 0) {
        return OptionalInt.empty();
      }
      flags |= bits;
    }
    return OptionalInt.of(flags);
  }

  private static int hexFlags(String digits) {
    if (digits.isEmpty() || digits.length() > 2) {
      return -1;
    }
    int v = 0;
    for (int i = 0; i < digits.length(); i++) {
      int d = Character.digit(digits.charAt(i), 16);
      if (d < 0 || digits.charAt(i) > 'f') {
        return -1;
      }
      v = (v << 4) | d;
    }
    return v;
  }

  private static int flagBit(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.equals("tensor")) {
      lower = "tensorbased";
    }
    for (int i = 0; i < MODEL_TYPE_FLAG_NAMES.length; i++) {
      if (MODEL_TYPE_FLAG_NAMES[i].equals(lower)) {
        return 1 << i;
      }
    }
    return -1;
  }
}
