package dev.kvrelay.engine.membership;

import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Immutable and thread-safe: one served LoRA adapter of an endpoint and the workers that load it.
 *
 * @param baseModel the base model the adapter is built on
 * @param adapter the runtime adapter name ({@code lora.name}, the hash salt)
 * @param workers worker id → {@code max_gpu_lora_count} (empty if not advertised), in unsigned id order
 */
public record AdapterMembership(String baseModel, String adapter, SortedMap<Long, OptionalLong> workers) {

  /** Copies {@code workers} into an unmodifiable map in unsigned worker-id order. */
  public AdapterMembership {
    workers = unsignedCopy(workers);
  }

  static <V> SortedMap<Long, V> unsignedCopy(Map<Long, V> map) {
    TreeMap<Long, V> copy = new TreeMap<>(Long::compareUnsigned);
    copy.putAll(map);
    return Collections.unmodifiableSortedMap(copy);
  }
}
