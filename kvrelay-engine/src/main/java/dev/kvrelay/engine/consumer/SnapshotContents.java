package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wire.DescriptorWire;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe: the received descriptors of one snapshot as an order-free multiset compared by
 * value (wan-grpc.md §7.3 "identical snapshot"). Wire digests are byte arrays, which records compare by
 * reference, so each descriptor is keyed with its digests copied into value lists.
 */
final class SnapshotContents {

  static final SnapshotContents EMPTY = new SnapshotContents(Map.of());

  private final Map<List<@Nullable Object>, Integer> counts;

  private SnapshotContents(Map<List<@Nullable Object>, Integer> counts) {
    this.counts = counts;
  }

  static SnapshotContents of(List<DescriptorWire> pools) {
    Map<List<@Nullable Object>, Integer> counts = new HashMap<>();
    for (DescriptorWire d : pools) {
      counts.merge(key(d), 1, Integer::sum);
    }
    return new SnapshotContents(Map.copyOf(counts));
  }

  private static List<@Nullable Object> key(DescriptorWire d) {
    return Arrays.asList(producerKey(d.producer()), d.servingEndpoint(), d.registrations(), d.querySemantics(),
        d.poolRoles());
  }

  private static @Nullable List<@Nullable Object> producerKey(ProducerIdentity.@Nullable Wire p) {
    if (p == null) {
      return null;
    }
    return Arrays.asList(poolKey(p.poolId()), p.producerIncarnation(), p.layoutGeneration(), p.ckfFormat());
  }

  private static @Nullable List<@Nullable Object> poolKey(KvPoolId.@Nullable Wire pool) {
    if (pool == null) {
      return null;
    }
    IndexerDomainId.Wire domain = pool.indexerDomain();
    List<@Nullable Object> domainKey = domain == null ? null
        : Arrays.asList(digestKey(domain.cacheSemantics()), digestKey(domain.routingScope()));
    return Arrays.asList(pool.identityVersion(), domainKey, pool.dcId());
  }

  private static @Nullable List<@Nullable Object> digestKey(DigestIdentity.@Nullable Wire digest) {
    if (digest == null) {
      return null;
    }
    byte[] bytes = digest.digest();
    List<@Nullable Object> key = Arrays.asList(bytes == null ? null : bytesOf(bytes), digest.source());
    return key;
  }

  private static List<Byte> bytesOf(byte[] bytes) {
    Byte[] boxed = new Byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      boxed[i] = bytes[i];
    }
    return List.of(boxed);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof SnapshotContents other && counts.equals(other.counts);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(counts);
  }
}
