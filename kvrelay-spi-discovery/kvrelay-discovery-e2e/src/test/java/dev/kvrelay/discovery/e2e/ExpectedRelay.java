package dev.kvrelay.discovery.e2e;

import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.discovery.e2e.RelayView.AdapterView;
import dev.kvrelay.discovery.e2e.RelayView.EntryView;
import dev.kvrelay.discovery.e2e.RelayView.MemberView;
import dev.kvrelay.discovery.e2e.RelayView.PoolView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Stateless and thread-safe: the oracle. From the workers that are advertised (each with its endpoint instance, so
 * live) it computes the catalog ({@code producer.md} §2, §4) and readiness ({@code producer.md} §5.1–§5.4) a relay
 * must publish, written from the spec alone — it shares no code with the engine.
 *
 * <p>Rules used: a pool per serving endpoint whose workers publish KV events, with the roles of its cards and one
 * registration per base model and LoRA adapter; a readiness entry per (namespace, base model) whose members are the
 * endpoints with a base card for it, sorted by path; units grouped by (worker type, needs); present = live types;
 * missing per §5.3 step 4; READY ⇔ some unit live and nothing missing; duplicates = PREFILL / DECODE with more than one
 * live unit; an adapter is READY only under a READY base and when its own units (workers listing it) evaluate ready.
 */
public final class ExpectedRelay {
  private ExpectedRelay() {}

  /** The expected view of {@code namespace} when exactly {@code workers} are advertised. */
  public static RelayView of(Collection<Worker> workers, String namespace) {
    List<Worker> mine = workers.stream().filter(w -> w.endpoint().namespace().equals(namespace)).toList();
    return new RelayView(pools(mine), entries(mine));
  }

  private static WorkerRole roleOf(Worker w) {
    return w.role() == null ? WorkerRole.LEGACY : w.role();
  }

  private static List<PoolView> pools(List<Worker> workers) {
    Map<String, List<Worker>> byEndpoint = new TreeMap<>();
    for (Worker w : workers) {
      if (w.kvEvents()) {
        byEndpoint.computeIfAbsent(RelayView.path(w.endpoint()), k -> new ArrayList<>()).add(w);
      }
    }
    List<PoolView> out = new ArrayList<>();
    byEndpoint.forEach((endpoint, ws) -> {
      Set<WorkerRole> roles = EnumSet.noneOf(WorkerRole.class);
      Set<String> registrations = new TreeSet<>();
      for (Worker w : ws) {
        roles.add(roleOf(w));
        registrations.add(w.model() + "=" + w.model());
        for (Worker.Adapter a : w.adapters()) {
          registrations.add(a.served() + "=lora(" + w.model() + "," + a.loraName() + ")");
        }
      }
      out.add(new PoolView(endpoint, List.copyOf(roles), List.copyOf(registrations)));
    });
    return out;
  }

  private static List<EntryView> entries(List<Worker> workers) {
    Map<String, List<Worker>> byModel = new TreeMap<>();
    for (Worker w : workers) {
      byModel.computeIfAbsent(w.model(), k -> new ArrayList<>()).add(w);
    }
    List<EntryView> out = new ArrayList<>();
    byModel.forEach((model, ws) -> {
      Map<String, List<Worker>> byEndpoint = new TreeMap<>();
      for (Worker w : ws) {
        byEndpoint.computeIfAbsent(RelayView.path(w.endpoint()), k -> new ArrayList<>()).add(w);
      }
      List<MemberView> members = new ArrayList<>();
      byEndpoint.forEach((endpoint, ew) -> {
        Set<WorkerRole> roles = EnumSet.noneOf(WorkerRole.class);
        ew.forEach(w -> roles.add(roleOf(w)));
        members.add(new MemberView(endpoint, List.copyOf(roles), ew.stream().anyMatch(Worker::kvEvents)));
      });
      Evaluation base = evaluate(ws, w -> true);
      Set<String> served = new TreeSet<>();
      ws.forEach(w -> w.adapters().forEach(a -> served.add(a.served())));
      List<AdapterView> adapters = new ArrayList<>();
      for (String s : served) {
        Evaluation own = evaluate(ws, w -> w.adapters().stream().anyMatch(a -> a.served().equals(s)));
        ServingReadinessState state = base.ready() && own.ready() ? ServingReadinessState.READY
            : ServingReadinessState.UNAVAILABLE;
        adapters.add(new AdapterView(s, state, own.missing()));
      }
      out.add(new EntryView(model, base.ready() ? ServingReadinessState.READY : ServingReadinessState.UNAVAILABLE,
          base.present(), base.missing(), members, base.duplicates(), adapters));
    });
    return out;
  }

  /** Immutable and thread-safe: one §5.3 evaluation. */
  private record Evaluation(boolean ready, List<WorkerRole> present, List<WorkerRole> missing,
      List<WorkerRole> duplicates) {}

  /** A readiness unit: its endpoint, worker type (null: legacy) and needs; every advertised worker is live. */
  private record Unit(String endpoint, WorkerRole type, List<List<WorkerRole>> needs) {}

  private static Evaluation evaluate(List<Worker> workers, Predicate<Worker> included) {
    Map<Unit, Integer> live = new LinkedHashMap<>();
    for (Worker w : workers) {
      if (included.test(w)) {
        live.merge(new Unit(RelayView.path(w.endpoint()), w.role(), w.needs()), 1, Integer::sum);
      }
    }
    Set<WorkerRole> present = EnumSet.noneOf(WorkerRole.class);
    boolean hasLive = false;
    Map<WorkerRole, Integer> liveUnitsByType = new TreeMap<>();
    for (Map.Entry<Unit, Integer> u : live.entrySet()) {
      if (u.getValue() > 0) {
        hasLive = true;
        if (u.getKey().type() != null) {
          present.add(u.getKey().type());
          liveUnitsByType.merge(u.getKey().type(), 1, Integer::sum);
        }
      }
    }
    Set<WorkerRole> missing = EnumSet.noneOf(WorkerRole.class);
    for (Map.Entry<Unit, Integer> u : live.entrySet()) {
      WorkerRole type = u.getKey().type();
      if (type == null) {
        continue;
      }
      if (!present.contains(type)) {
        missing.add(type);
      }
      List<List<WorkerRole>> needs = u.getKey().needs();
      if (u.getValue() > 0 && !needs.isEmpty() && needs.stream().noneMatch(present::containsAll)) {
        needs.stream().flatMap(List::stream).filter(r -> !present.contains(r)).forEach(missing::add);
      }
    }
    List<WorkerRole> duplicates = liveUnitsByType.entrySet().stream()
        .filter(e -> e.getValue() > 1 && (e.getKey() == WorkerRole.PREFILL || e.getKey() == WorkerRole.DECODE))
        .map(Map.Entry::getKey).toList();
    boolean ready = hasLive && missing.isEmpty();
    return new Evaluation(ready, List.copyOf(present), List.copyOf(missing), duplicates);
  }

}
