package dev.kvrelay.api;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: an explicit identity map from a card's {@code indexer_identity}
 * ({@code semantics} or {@code routing_scope}), which, when present, replaces the default identity
 * material.
 *
 * <p>Constraints ({@code producer.md} §1.3): {@value #MIN_ENTRIES}..={@value #MAX_ENTRIES} entries; keys
 * non-empty and at most {@value #MAX_KEY_BYTES} UTF-8 bytes; values non-empty and at most
 * {@value #MAX_VALUE_BYTES} UTF-8 bytes; no duplicate keys. Entries iterate in ascending byte-wise
 * (UTF-8) key order, the order in which they are hashed.
 *
 * @param entries the validated entries, sorted by UTF-8 key bytes (unmodifiable)
 */
public record ExplicitIdentityMap(SortedMap<String, String> entries) {

  /** Fewest entries. */
  public static final int MIN_ENTRIES = 1;
  /** Most entries. */
  public static final int MAX_ENTRIES = 32;
  /** Longest key in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 128;
  /** Longest value in UTF-8 bytes. */
  public static final int MAX_VALUE_BYTES = 1024;

  /**
   * Trusted constructor: copies and re-sorts the entries.
   *
   * @throws IllegalArgumentException if a constraint is broken
   */
  public ExplicitIdentityMap {
    List<Map.Entry<String, String>> list = new ArrayList<>(entries.entrySet());
    try {
      entries = validated("indexer_identity", list);
    } catch (WireValidationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** Trusted factory; see the canonical constructor. */
  public static ExplicitIdentityMap of(Map<String, String> entries) {
    return new ExplicitIdentityMap(new TreeMap<>(entries));
  }

  /**
   * Validates entries read from card JSON in document order (so duplicate keys can be seen).
   *
   * @param field the JSON path for errors, e.g. {@code indexer_identity.semantics}
   * @throws WireValidationException (malformed) if a constraint is broken, a key repeats ("duplicate
   *     explicit identity key"), or a key or value is missing or not valid UTF-8 text
   */
  public static ExplicitIdentityMap fromEntries(
      String field, @Nullable List<? extends Map.@Nullable Entry<@Nullable String, @Nullable String>> entries)
      throws WireValidationException {
    return new ExplicitIdentityMap(validated(field, entries == null ? List.of() : entries));
  }

  /** Validates a map read from card JSON (duplicates already merged by the reader). */
  public static ExplicitIdentityMap fromMap(String field, @Nullable Map<@Nullable String, @Nullable String> entries)
      throws WireValidationException {
    return fromEntries(field, entries == null ? List.of() : new ArrayList<>(entries.entrySet()));
  }

  /** Number of entries. */
  public int size() {
    return entries.size();
  }

  private static SortedMap<String, String> validated(
      String field, List<? extends Map.@Nullable Entry<@Nullable String, @Nullable String>> entries)
      throws WireValidationException {
    if (entries.size() < MIN_ENTRIES) {
      throw WireValidationException.malformed(field, "explicit identity map is empty");
    }
    if (entries.size() > MAX_ENTRIES) {
      throw WireValidationException.malformed(
          field, "explicit identity map has " + entries.size() + " entries, more than " + MAX_ENTRIES);
    }
    TreeMap<String, String> sorted = new TreeMap<>(WireText.CODE_POINT_ORDER);
    for (Map.Entry<@Nullable String, @Nullable String> e : entries) {
      if (e == null || e.getKey() == null || e.getValue() == null) {
        throw WireValidationException.malformed(field, "explicit identity entry has no key or value");
      }
      String key = e.getKey();
      String value = e.getValue();
      checkPart(field, "key", key, MAX_KEY_BYTES);
      checkPart(field + "." + key, "value", value, MAX_VALUE_BYTES);
      if (sorted.put(key, value) != null) {
        throw WireValidationException.malformed(field, "duplicate explicit identity key '" + key + "'");
      }
    }
    return Collections.unmodifiableSortedMap(sorted);
  }

  private static void checkPart(String field, String what, String text, int maxBytes)
      throws WireValidationException {
    if (text.isEmpty()) {
      throw WireValidationException.malformed(field, "explicit identity " + what + " is empty");
    }
    if (!WireText.isWellFormed(text)) {
      throw WireValidationException.malformed(field, "explicit identity " + what + " is not valid UTF-8 text");
    }
    int bytes = text.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxBytes) {
      throw WireValidationException.malformed(
          field, "explicit identity " + what + " has " + bytes + " UTF-8 bytes, more than " + maxBytes);
    }
  }
}
