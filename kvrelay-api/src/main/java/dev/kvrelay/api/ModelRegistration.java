package dev.kvrelay.api;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: one request-facing model served by a pool (wire
 * {@code ModelRegistration}). Ordered by canonical model id, then target ({@code Base < Lora}), then aliases
 * (lexicographic list order), all text in code-point order.
 *
 * @param canonicalModelId the served name; valid text
 * @param target base model or LoRA adapter
 * @param aliases further request names; each valid text, no duplicates (an unmodifiable copy)
 */
public record ModelRegistration(String canonicalModelId, ModelTarget target, List<String> aliases)
    implements Comparable<ModelRegistration> {

  /**
   * Trusted constructor: keeps the alias order given.
   *
   * @throws IllegalArgumentException if a text is invalid or an alias repeats
   */
  public ModelRegistration {
    WireText.require("canonical_model_id", canonicalModelId);
    Objects.requireNonNull(target, "target");
    aliases = List.copyOf(aliases);
    Set<String> seen = new HashSet<>();
    for (String alias : aliases) {
      WireText.require("aliases", alias);
      if (!seen.add(alias)) {
        throw new IllegalArgumentException("duplicate alias '" + alias + "'");
      }
    }
  }

  /**
   * The producer's normalized registration: aliases with the canonical id itself removed, deduplicated
   * and sorted (code-point order).
   *
   * @throws IllegalArgumentException if a text is invalid
   */
  public static ModelRegistration normalized(String canonicalModelId, ModelTarget target, List<String> aliases) {
    TreeSet<String> sorted = new TreeSet<>(WireText.CODE_POINT_ORDER);
    for (String alias : aliases) {
      sorted.add(WireText.require("aliases", alias));
    }
    sorted.remove(canonicalModelId);
    return new ModelRegistration(canonicalModelId, target, new ArrayList<>(sorted));
  }

  /**
   * Validates a wire registration in field order: canonical_model_id text (malformed); target
   * ({@link ModelTarget#fromWire}: {@code targetCase == null} — message missing — is malformed, an unset
   * oneof unsupported, invalid text malformed); aliases (invalid text or a duplicate ⇒ malformed).
   *
   * @param targetCase {@code null} if the {@code target} message is absent
   * @param baseModel {@code base.base_model} or {@code lora.base_model}, per {@code targetCase}
   * @param adapter {@code lora.adapter} (ignored unless {@code targetCase} is LORA)
   */
  public static ModelRegistration fromWire(
      @Nullable String canonicalModelId,
      ModelTarget.@Nullable WireCase targetCase,
      @Nullable String baseModel,
      @Nullable String adapter,
      @Nullable List<@Nullable String> aliases)
      throws WireValidationException {
    String id = WireText.check("canonical_model_id", canonicalModelId);
    ModelTarget target = ModelTarget.fromWire(targetCase, baseModel, adapter);
    List<String> checked = new ArrayList<>();
    if (aliases != null) {
      Set<String> seen = new HashSet<>();
      for (String alias : aliases) {
        String valid = WireText.check("aliases", alias);
        if (!seen.add(valid)) {
          throw WireValidationException.malformed("aliases", "duplicate alias '" + valid + "'");
        }
        checked.add(valid);
      }
    }
    return new ModelRegistration(id, target, checked);
  }

  /** The wire discriminator of {@link #target()}. */
  public ModelTarget.WireCase targetCase() {
    return target instanceof ModelTarget.Lora ? ModelTarget.WireCase.LORA : ModelTarget.WireCase.BASE;
  }

  @Override
  public int compareTo(ModelRegistration other) {
    int c = WireText.compareCodePoints(canonicalModelId, other.canonicalModelId);
    if (c == 0) {
      c = target.compareTo(other.target);
    }
    for (int i = 0; c == 0 && i < Math.min(aliases.size(), other.aliases.size()); i++) {
      c = WireText.compareCodePoints(aliases.get(i), other.aliases.get(i));
    }
    return c != 0 ? c : Integer.compare(aliases.size(), other.aliases.size());
  }
}
