package dev.kvrelay.engine.topology;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.membership.AdapterMembership;
import dev.kvrelay.engine.membership.WorkerTopology;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/** Test helpers; confined to one test thread. */
final class Fixtures {
  static final WorkerRole P = WorkerRole.PREFILL;
  static final WorkerRole D = WorkerRole.DECODE;
  static final WorkerRole E = WorkerRole.ENCODE;
  static final WorkerRole AGG = WorkerRole.AGGREGATED;
  static final WorkerRole LEGACY = WorkerRole.LEGACY;

  /** {@code model_type} flags of a Chat card ({@code ModelCard.modelTypeFlags()} of {@code "Chat"}). */
  static final OptionalInt CHAT = OptionalInt.of(1);
  /** {@code model_type} flags of an Embedding card. */
  static final OptionalInt EMBEDDING = OptionalInt.of(4);

  private Fixtures() {}

  /** One adapter {@code servedName} → (baseModel, adapter) loaded by {@code workerIds}, no LoRA counts. */
  static Map<String, AdapterMembership> adapter(String servedName, String baseModel, String adapter, Long... workerIds) {
    return adapter(servedName, baseModel, adapter, Set.of(workerIds));
  }

  static Map<String, AdapterMembership> adapter(String servedName, String baseModel, String adapter, Set<Long> workerIds) {
    Map<Long, OptionalLong> workers = new LinkedHashMap<>();
    for (Long id : workerIds) {
      workers.put(id, OptionalLong.empty());
    }
    return Map.of(servedName, new AdapterMembership(baseModel, adapter, new TreeMap<>(workers)));
  }

  static DynamoEndpointId ep(String namespace, String component) {
    return new DynamoEndpointId(namespace, component, "generate");
  }

  static KvPoolId pool(int tag) {
    byte[] a = new byte[16];
    Arrays.fill(a, (byte) tag);
    byte[] b = new byte[16];
    Arrays.fill(b, (byte) (tag + 1));
    return new KvPoolId(
        new IndexerDomainId(new DigestIdentity(a, IdentitySource.EXPLICIT), new DigestIdentity(b, IdentitySource.EXPLICIT)),
        DcId.of(7));
  }

  /** One worker {@code id} of the given topology. */
  static Map<Long, WorkerTopology> worker(long id, WorkerTopology topology) {
    Map<Long, WorkerTopology> m = new LinkedHashMap<>();
    m.put(id, topology);
    return m;
  }

  static EndpointTopology endpoint(DynamoEndpointId id, String model, long workerId, WorkerTopology topology) {
    return EndpointTopology.of(id, model, worker(workerId, topology));
  }

  static List<List<WorkerRole>> needs(List<WorkerRole>... alternatives) {
    return List.of(alternatives);
  }

  static Map<DynamoEndpointId, Set<Long>> live(Object... endpointThenIds) {
    Map<DynamoEndpointId, Set<Long>> m = new LinkedHashMap<>();
    for (int i = 0; i < endpointThenIds.length; i += 2) {
      m.put((DynamoEndpointId) endpointThenIds[i], (Set<Long>) endpointThenIds[i + 1]);
    }
    return m;
  }
}
