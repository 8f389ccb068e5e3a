package dev.kvrelay.engine.topology;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.membership.AdapterMembership;
import dev.kvrelay.engine.membership.ConflictScope;
import dev.kvrelay.engine.membership.WorkerTopology;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/** Test helper: seeded random memberships, availability and pool links; confined to one test thread. */
final class RandomTopology {
  private static final WorkerRole[] TYPES = WorkerRole.values();
  private static final List<List<List<WorkerRole>>> NEEDS = List.of(
      List.of(),
      List.of(List.of(WorkerRole.DECODE)),
      List.of(List.of(WorkerRole.PREFILL)),
      List.of(List.of(WorkerRole.PREFILL, WorkerRole.DECODE), List.of(WorkerRole.AGGREGATED)));
  private static final String[] MODELS = {"llama", "mistral", "Llama"};
  private static final String[] NAMESPACES = {"ns", "prod", "ns2"};

  final List<EndpointTopology> endpoints = new ArrayList<>();
  final Map<DynamoEndpointId, Set<Long>> availability = new HashMap<>();
  final List<PoolLink> links = new ArrayList<>();

  RandomTopology(Random r) {
    int count = r.nextInt(7);
    long nextWorker = r.nextBoolean() ? 1 : Long.MAX_VALUE - 3;
    for (int i = 0; i < count; i++) {
      DynamoEndpointId id = new DynamoEndpointId(NAMESPACES[r.nextInt(NAMESPACES.length)], "c" + i, "generate");
      endpoints.add(endpoint(r, id, nextWorker));
      nextWorker += 8;
      if (r.nextInt(4) != 0) {
        Set<Long> live = new HashSet<>();
        for (Long w : endpoints.get(i).workers().keySet()) {
          if (r.nextInt(3) != 0) {
            live.add(w);
          }
        }
        availability.put(id, live);
      }
      for (String model : endpoints.get(i).baseModels()) {
        if (r.nextBoolean()) {
          links.add(new PoolLink(id, model, Fixtures.pool(r.nextInt(3))));
        }
      }
    }
  }

  static EndpointTopology endpoint(Random r, DynamoEndpointId id, long firstWorker) {
    Map<Long, WorkerTopology> workers = new LinkedHashMap<>();
    int n = 1 + r.nextInt(4);
    for (int w = 0; w < n; w++) {
      WorkerRole type = TYPES[r.nextInt(TYPES.length)];
      if (type == WorkerRole.LEGACY && r.nextInt(3) != 0) {
        type = WorkerRole.PREFILL;
      }
      List<List<WorkerRole>> needs = type == WorkerRole.LEGACY ? List.of() : NEEDS.get(r.nextInt(NEEDS.size()));
      workers.put(firstWorker + w, new WorkerTopology(type, r.nextBoolean() ? OptionalInt.empty() : Fixtures.CHAT, needs));
    }
    List<String> models = new ArrayList<>();
    models.add(MODELS[r.nextInt(MODELS.length)]);
    if (r.nextInt(5) == 0) {
      models.add(MODELS[r.nextInt(MODELS.length)]);
    }
    TreeMap<String, AdapterMembership> adapters = new TreeMap<>();
    if (r.nextBoolean()) {
      Set<Long> subset = new HashSet<>();
      for (Long w : workers.keySet()) {
        if (r.nextBoolean()) {
          subset.add(w);
        }
      }
      adapters.putAll(Fixtures.adapter("lora-" + r.nextInt(2), models.get(0), "a", subset));
    }
    EnumSet<ConflictScope> conflicts = EnumSet.noneOf(ConflictScope.class);
    for (ConflictScope s : ConflictScope.values()) {
      if (r.nextInt(6) == 0) {
        conflicts.add(s);
      }
    }
    return new EndpointTopology(id, EndpointTopology.rolesOf(workers), models, workers, adapters, conflicts);
  }
}
