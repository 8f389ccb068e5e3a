package dev.kvrelay.api;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: a worker role declared by a model card (wire enum {@code WorkerRole}).
 * Declaration order is the sorted order used for pool roles.
 */
public enum WorkerRole {
  /** {@code WORKER_ROLE_PREFILL} (1). */
  PREFILL(1, "prefill"),
  /** {@code WORKER_ROLE_DECODE} (2). */
  DECODE(2, "decode"),
  /** {@code WORKER_ROLE_ENCODE} (3). */
  ENCODE(3, "encode"),
  /** {@code WORKER_ROLE_AGGREGATED} (4): prefill and decode in one worker. */
  AGGREGATED(4, "aggregated"),
  /** {@code WORKER_ROLE_LEGACY} (5): a card without {@code worker_type}. */
  LEGACY(5, "legacy");

  private static final int PREFILL_BIT = 1;
  private static final int DECODE_BIT = 2;
  private static final int ENCODE_BIT = 4;

  private final int wireValue;
  private final String text;

  WorkerRole(int wireValue, String text) {
    this.wireValue = wireValue;
    this.text = text;
  }

  /** The protobuf enum number. */
  public int wireValue() {
    return wireValue;
  }

  /** The lowercase name ({@code prefill}, …, {@code legacy}). */
  public String text() {
    return text;
  }

  /** Decodes a wire value: 0 (UNSPECIFIED) is malformed, any other unknown value unsupported. */
  public static WorkerRole fromWire(int value) throws WireValidationException {
    return fromWire("role", value);
  }

  private static WorkerRole fromWire(String field, int value) throws WireValidationException {
    return switch (value) {
      case 1 -> PREFILL;
      case 2 -> DECODE;
      case 3 -> ENCODE;
      case 4 -> AGGREGATED;
      case 5 -> LEGACY;
      case 0 -> throw WireValidationException.malformed(field, "worker role is UNSPECIFIED");
      default -> throw WireValidationException.unsupported(field, "unknown worker role " + value);
    };
  }

  /**
   * Validates a wire role set (e.g. {@code pool_roles}): empty ⇒ malformed; then each value in order
   * (0 ⇒ malformed, unknown ⇒ unsupported, a repeat ⇒ malformed).
   *
   * @param field the field name for errors, e.g. {@code pool_roles}
   * @return the roles, iterating in declaration order (unmodifiable)
   */
  public static Set<WorkerRole> fromWireSet(String field, int @Nullable [] values) throws WireValidationException {
    if (values == null || values.length == 0) {
      throw WireValidationException.malformed(field, "role set must not be empty");
    }
    EnumSet<WorkerRole> roles = EnumSet.noneOf(WorkerRole.class);
    for (int value : values) {
      if (!roles.add(fromWire(field, value))) {
        throw WireValidationException.malformed(field, "duplicate worker role " + value);
      }
    }
    return Collections.unmodifiableSet(roles);
  }

  /**
   * As {@link #fromWireSet(String, int[])} for a protobuf {@code getXxxValueList()}; a {@code null}
   * element is malformed.
   */
  public static Set<WorkerRole> fromWireSet(String field, @Nullable List<@Nullable Integer> values)
      throws WireValidationException {
    if (values == null) {
      return fromWireSet(field, (int[]) null);
    }
    int[] array = new int[values.size()];
    for (int i = 0; i < array.length; i++) {
      Integer value = values.get(i);
      if (value == null) {
        throw WireValidationException.malformed(field, "role value is missing");
      }
      array[i] = value;
    }
    return fromWireSet(field, array);
  }

  /**
   * Checks a producer's pool roles (trusted input).
   *
   * @throws IllegalArgumentException if empty ("pool requires at least one declared worker role") or a
   *     role repeats ("pool repeats declared worker role")
   */
  public static Set<WorkerRole> requireValidPoolRoles(Collection<WorkerRole> roles) {
    if (roles.isEmpty()) {
      throw new IllegalArgumentException("pool requires at least one declared worker role");
    }
    EnumSet<WorkerRole> set = EnumSet.noneOf(WorkerRole.class);
    for (WorkerRole role : roles) {
      if (!set.add(role)) {
        throw new IllegalArgumentException("pool repeats declared worker role " + role.text);
      }
    }
    return Collections.unmodifiableSet(set);
  }

  /**
   * The role a card's {@code worker_type} declares. {@code null} (absent or JSON null) ⇒ {@link #LEGACY}.
   * Otherwise {@code |}-separated tokens, case-insensitive, whitespace around tokens ignored:
   * {@code prefill}, {@code decode}, {@code encode}, {@code aggregated} (= {@code prefill|decode}).
   * The combined flags must be one of the four canonical worker types.
   *
   * @throws WireValidationException (malformed, field {@code worker_type}) for an unknown token or a
   *     non-canonical value (empty, or e.g. {@code prefill|encode})
   */
  public static WorkerRole parseWorkerType(@Nullable String workerType) throws WireValidationException {
    if (workerType == null) {
      return LEGACY;
    }
    int bits = 0;
    String trimmed = WireText.trim(workerType);
    if (!trimmed.isEmpty()) {
      for (String raw : trimmed.split("\\|", -1)) {
        String token = WireText.asciiLowercase(WireText.trim(raw));
        bits |= switch (token) {
          case "prefill" -> PREFILL_BIT;
          case "decode" -> DECODE_BIT;
          case "encode" -> ENCODE_BIT;
          case "aggregated" -> PREFILL_BIT | DECODE_BIT;
          default -> throw WireValidationException.malformed(
              "worker_type", "unrecognized worker_type token: '" + token + "'");
        };
      }
    }
    return switch (bits) {
      case PREFILL_BIT -> PREFILL;
      case DECODE_BIT -> DECODE;
      case ENCODE_BIT -> ENCODE;
      case PREFILL_BIT | DECODE_BIT -> AGGREGATED;
      default -> throw WireValidationException.malformed(
          "worker_type", "worker_type '" + workerType + "' is not one of prefill, decode, encode, aggregated");
    };
  }
}
