package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonValue;
import java.util.List;

/**
 * Immutable and thread-safe: a model deployment card ({@code DiscoveryInstance::Model}). The decoded
 * {@link ModelCard} holds the fields the relay reads; {@code rawCard} is the whole {@code card_json}, whose
 * equality is card equality for change detection ({@code producer.md} §2.1).
 *
 * @param key endpoint, instance id and optional adapter suffix
 * @param card the decoded card
 * @param rawCard the card JSON as received
 */
public record ModelRecord(ModelKey key, ModelCard card, JsonObject rawCard) implements DiscoveryRecord {

  /**
   * Decodes {@code rawCard}.
   *
   * @throws DiscoveryDecodeException if the card is malformed (fields reported under {@code card_json})
   */
  public static ModelRecord of(ModelKey key, JsonObject rawCard) throws DiscoveryDecodeException {
    try {
      return new ModelRecord(key, ModelCard.fromJson(rawCard), rawCard);
    } catch (DiscoveryDecodeException e) {
      throw e.under("card_json");
    }
  }

  /** True if the discovery id names an adapter ({@code model_suffix} present). */
  public boolean hasSuffix() {
    return key.suffix() != null;
  }

  /**
   * This record with {@code runtime_config.taints} replaced in both the card and the raw card JSON
   * (the one mutable part of a registered card; {@code ModelTaintsUpdated}).
   */
  public ModelRecord withTaints(List<String> taints) {
    JsonValue rc = rawCard.get("runtime_config");
    JsonObject runtimeConfig = rc instanceof JsonObject jsonObject ? jsonObject : JsonObject.of();
    JsonObject patched = rawCard.with("runtime_config", runtimeConfig.with("taints", JsonArray.ofStrings(taints)));
    return new ModelRecord(key, card.withTaints(taints), patched);
  }
}
