package dev.kvrelay.engine.membership;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.KvEventSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Not thread-safe: confined to the membership task. The KV event source advertisements currently in
 * discovery ({@code producer.md} §2.4), indexed by {@link KvSourceKey}, with the sticky
 * {@code ConflictingDescriptor} marks. Removal is by the exact discovery key (scope, topic, publisher id).
 */
public final class KvSourceAdvertisements {

  /** The topic KV event sources advertise under. */
  public static final String KV_EVENTS_TOPIC = "kv-events";

  private final Map<EventSourceKey, KvEventSource> byKey = new HashMap<>();
  private final Map<KvSourceKey, TreeMap<Long, KvEventSource>> byRank = new HashMap<>();
  /** Publisher keys that re-advertised a different descriptor → every rank they described meanwhile. */
  private final Map<EventSourceKey, Set<KvSourceKey>> conflicting = new HashMap<>();

  /** Records or replaces an advertisement; rejected input changes nothing. */
  public AdvertisementOutcome advertise(EventSourceRecord record) {
    EventSourceKey key = record.key();
    KvEventSource source = record.source();
    if (!KV_EVENTS_TOPIC.equals(key.topic())) {
      return AdvertisementOutcome.REJECTED_TOPIC;
    }
    if (!(key.scope() instanceof EventScope.Endpoint)
        || !((EventScope.Endpoint) key.scope()).endpoint().equals(source.kvStateEndpoint())) {
      return AdvertisementOutcome.REJECTED_SCOPE_MISMATCH;
    }
    KvEventSource old = byKey.get(key);
    if (source.equals(old)) {
      return AdvertisementOutcome.UNCHANGED;
    }
    if (old != null) {
      unindex(old);
      Set<KvSourceKey> marked = conflicting.computeIfAbsent(key, k -> new TreeSet<>());
      marked.add(rankOf(old));
      marked.add(rankOf(source));
    }
    byKey.put(key, source);
    byRank.computeIfAbsent(rankOf(source), k -> new TreeMap<>(Long::compareUnsigned)).put(source.publisherId(), source);
    return old == null ? AdvertisementOutcome.ADDED : AdvertisementOutcome.CONFLICTING_DESCRIPTOR;
  }

  /** Removes the advertisement with exactly this key; an unknown key is rejected and changes nothing. */
  public AdvertisementOutcome withdraw(EventSourceKey key) {
    KvEventSource old = byKey.remove(key);
    if (old == null) {
      return AdvertisementOutcome.REJECTED_UNKNOWN_SOURCE;
    }
    unindex(old);
    conflicting.remove(key);
    return AdvertisementOutcome.REMOVED;
  }

  /** Number of recorded advertisements. */
  public int size() {
    return byKey.size();
  }

  /** The status of one expected source (kv-state endpoint assumed unambiguous). */
  public KvSourceStatus statusOf(KvSourceKey rank) {
    for (Set<KvSourceKey> marked : conflicting.values()) {
      if (marked.contains(rank)) {
        return new KvSourceStatus.Ambiguous(KvSourceStatus.AmbiguityReason.CONFLICTING_DESCRIPTOR);
      }
    }
    TreeMap<Long, KvEventSource> publishers = byRank.get(rank);
    if (publishers == null || publishers.isEmpty()) {
      return KvSourceStatus.Missing.INSTANCE;
    }
    if (publishers.size() > 1) {
      return new KvSourceStatus.Ambiguous(KvSourceStatus.AmbiguityReason.INCARNATIONS);
    }
    KvEventSource only = publishers.firstEntry().getValue();
    return only.isRecoverable()
        ? new KvSourceStatus.ActiveRecoverable(only.publisherId())
        : new KvSourceStatus.ActiveLiveOnly(only.publisherId());
  }

  /** The advertisement of {@code publisherId} for {@code rank}, if recorded. */
  public Optional<KvEventSource> sourceOf(KvSourceKey rank, long publisherId) {
    TreeMap<Long, KvEventSource> publishers = byRank.get(rank);
    return publishers == null ? Optional.empty() : Optional.ofNullable(publishers.get(publisherId));
  }

  private void unindex(KvEventSource source) {
    KvSourceKey rank = rankOf(source);
    TreeMap<Long, KvEventSource> publishers = byRank.get(rank);
    if (publishers != null) {
      publishers.remove(source.publisherId());
      if (publishers.isEmpty()) {
        byRank.remove(rank);
      }
    }
  }

  static KvSourceKey rankOf(KvEventSource source) {
    return new KvSourceKey(source.kvStateEndpoint(), source.workerId(), source.dpRank());
  }
}
