package dev.kvrelay.api;

import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: what a registration serves, a base model or a LoRA adapter on a base
 * model (wire {@code ModelTarget}, a oneof). Ordered {@code Base < Lora}, then by fields in code-point order.
 */
public sealed interface ModelTarget extends Comparable<ModelTarget> permits ModelTarget.Base, ModelTarget.Lora {

  /** The base model every target is built on. */
  String baseModel();

  /** Immutable and thread-safe: which oneof alternative a wire {@code ModelTarget} carries ({@code target_case}). */
  enum WireCase {
    /** {@code base} is set. */
    BASE,
    /** {@code lora} is set. */
    LORA,
    /** The oneof is unset: possibly an alternative from a newer revision. */
    NOT_SET
  }

  /**
   * Immutable and thread-safe: a base model.
   *
   * @param baseModel the model name; valid text
   */
  record Base(String baseModel) implements ModelTarget {
    /** Trusted constructor; rejects invalid text with {@link IllegalArgumentException}. */
    public Base {
      WireText.require("base_model", baseModel);
    }
  }

  /**
   * Immutable and thread-safe: a LoRA adapter on a base model.
   *
   * @param baseModel the base model name; valid text
   * @param adapter the canonical adapter id (runtime {@code lora.name}): the block-hash salt; valid text
   */
  record Lora(String baseModel, String adapter) implements ModelTarget {
    /** Trusted constructor; rejects invalid text with {@link IllegalArgumentException}. */
    public Lora {
      WireText.require("base_model", baseModel);
      WireText.require("adapter", adapter);
    }
  }

  /**
   * Validates a wire target. {@code targetCase == null} means the {@code target} message is missing
   * (malformed); {@link WireCase#NOT_SET} means the oneof is unset (unsupported). Text fields of the
   * chosen alternative must be valid (malformed otherwise); the other alternative's fields are ignored.
   */
  static ModelTarget fromWire(
      @Nullable WireCase targetCase, @Nullable String baseModel, @Nullable String adapter)
      throws WireValidationException {
    return fromWire("target", targetCase, baseModel, adapter);
  }

  private static ModelTarget fromWire(
      String field, @Nullable WireCase targetCase, @Nullable String baseModel, @Nullable String adapter)
      throws WireValidationException {
    if (targetCase == null) {
      throw WireValidationException.malformed(field, "model target is missing");
    }
    return switch (targetCase) {
      case BASE -> new Base(WireText.check(field + ".base.base_model", baseModel));
      case LORA -> new Lora(
          WireText.check(field + ".lora.base_model", baseModel), WireText.check(field + ".lora.adapter", adapter));
      default -> throw WireValidationException.unsupported(field, "model target oneof is unset (unknown alternative)");
    };
  }

  @Override
  default int compareTo(ModelTarget other) {
    boolean thisLora = this instanceof Lora;
    boolean otherLora = other instanceof Lora;
    if (thisLora != otherLora) {
      return thisLora ? 1 : -1;
    }
    int c = WireText.compareCodePoints(baseModel(), other.baseModel());
    if (c != 0 || !thisLora) {
      return c;
    }
    return WireText.compareCodePoints(((Lora) this).adapter(), ((Lora) other).adapter());
  }
}
