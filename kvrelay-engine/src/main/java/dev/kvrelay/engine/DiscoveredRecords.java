package dev.kvrelay.engine;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.membership.KvSourceAdvertisements;
import dev.kvrelay.engine.membership.KvSourceKey;
import dev.kvrelay.engine.membership.KvSourceStatus;
import dev.kvrelay.engine.membership.KvSourceView;
import dev.kvrelay.engine.recovery.SourceBinding;
import dev.kvrelay.spi.discovery.DiscoveryDiff;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.EventChannelRecord;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.Transport;
import dev.kvrelay.spi.eventplane.RecoveryTarget;
import dev.kvrelay.spi.eventplane.TransportAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Confined to the engine's control task: what discovery says, as the relay host applies its callbacks: every
 * record by key, and the KV event sources they advertise (membership input), with the lookups the host's reconcile
 * needs.
 */
final class DiscoveredRecords {
  private final Map<DiscoveryKey, DiscoveryRecord> known = new HashMap<>();
  private KvSourceAdvertisements adverts = new KvSourceAdvertisements();

  /** Replaces everything with a watch's first state. */
  void replaceAll(List<DiscoveryRecord> records) {
    known.clear();
    for (DiscoveryRecord r : records) {
      known.put(key(r), r);
    }
    rebuildAdvertisements();
  }

  /** Adds or replaces {@code record}. */
  void upsert(DiscoveryRecord record) {
    known.put(key(record), record);
    if (record instanceof EventSourceRecord es) {
      adverts.advertise(es);
    }
  }

  /** Removes the record of {@code key}; false (nothing changed) if there was none. */
  boolean remove(DiscoveryKey key) {
    if (known.remove(key) == null) {
      return false;
    }
    if (key instanceof EventSourceKey esk) {
      adverts.withdraw(esk);
    }
    return true;
  }

  /** Replaces the taints of a known model card; false (nothing changed) if {@code key} is not a known model card. */
  boolean updateTaints(ModelKey key, List<String> taints) {
    DiscoveryRecord r = known.get(key);
    if (r instanceof ModelRecord m) {
      known.put(key, m.withTaints(taints));
      return true;
    }
    return false;
  }

  /** Applies the difference between what is known and {@code records} (a resync, or a re-scoped watch). */
  void resync(List<DiscoveryRecord> records) {
    DiscoveryDiff diff = DiscoveryDiff.between(known, records);
    for (DiscoveryKey k : diff.removed()) {
      known.remove(k);
    }
    for (DiscoveryRecord r : diff.upserted()) {
      known.put(key(r), r);
    }
    rebuildAdvertisements();
  }

  /** Every known record (a live view; unordered). */
  Collection<DiscoveryRecord> records() {
    return known.values();
  }

  /** The advertised KV event sources (membership input). */
  KvSourceAdvertisements adverts() {
    return adverts;
  }

  /** Every known model card. */
  List<ModelRecord> models() {
    List<ModelRecord> models = new ArrayList<>();
    for (DiscoveryRecord r : known.values()) {
      if (r instanceof ModelRecord m) {
        models.add(m);
      }
    }
    return models;
  }

  /** The live instance ids of every endpoint with at least one Endpoint record. */
  Map<DynamoEndpointId, Set<Long>> liveInstances() {
    Map<DynamoEndpointId, Set<Long>> live = new HashMap<>();
    for (DiscoveryRecord r : known.values()) {
      if (r instanceof EndpointRecord e) {
        live.computeIfAbsent(e.endpoint(), k -> new HashSet<>()).add(e.instanceId());
      }
    }
    return live;
  }

  /** The active sources of a view as recovery bindings, in key order. */
  List<SourceBinding> bindings(KvSourceView view) {
    List<SourceBinding> out = new ArrayList<>();
    for (Map.Entry<KvSourceKey, KvSourceStatus> e : view.statuses().entrySet()) {
      KvSourceKey k = e.getKey();
      MemberId member = new MemberId(k.workerId(), (int) k.dpRank());
      if (e.getValue() instanceof KvSourceStatus.ActiveRecoverable r) {
        Optional<RecoveryTarget> target =
            adverts.sourceOf(k, r.publisherId()).map(KvEventSource::recoveryTarget).map(DiscoveredRecords::target);
        out.add(new SourceBinding(member, r.publisherId(), target));
      } else if (e.getValue() instanceof KvSourceStatus.ActiveLiveOnly l) {
        out.add(new SourceBinding(member, l.publisherId(), Optional.empty()));
      }
    }
    return out;
  }

  private static @Nullable RecoveryTarget target(@Nullable EndpointRecord record) {
    if (record == null) {
      return null;
    }
    Transport t = record.transport();
    TransportAddress.Kind kind = t instanceof Transport.Tcp ? TransportAddress.Kind.TCP
        : t instanceof Transport.NatsTcp ? TransportAddress.Kind.NATS_TCP : TransportAddress.Kind.HTTP;
    return new RecoveryTarget(record.endpoint(), record.instanceId(), new TransportAddress(kind, t.value()));
  }

  private static DiscoveryKey key(DiscoveryRecord r) {
    if (r instanceof ModelRecord m) {
      return m.key();
    } else if (r instanceof EndpointRecord e) {
      return e.key();
    } else if (r instanceof EventSourceRecord s) {
      return s.key();
    }
    return ((EventChannelRecord) r).key();
  }

  private void rebuildAdvertisements() {
    adverts = new KvSourceAdvertisements();
    List<EventSourceRecord> sources = new ArrayList<>();
    for (DiscoveryRecord r : known.values()) {
      if (r instanceof EventSourceRecord es) {
        sources.add(es);
      }
    }
    sources.sort((a, b) -> DiscoveryKey.ORDER.compare(a.key(), b.key()));
    for (EventSourceRecord es : sources) {
      adverts.advertise(es);
    }
  }
}
