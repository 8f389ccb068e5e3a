package dev.kvrelay.grpc.wire;

import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ModelDeploymentStatus;
import dev.kvrelay.engine.wire.ModelServingLoad;
import dev.kvrelay.engine.wire.PoolDeploymentStatus;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.PoolServingLoad;
import dev.kvrelay.engine.wire.RequestLifecycleStats;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadView;
import dev.kvrelay.engine.wire.TokenLoadStats;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;

/** Random engine values for the codec's round trips: full-range u64s (above Long.MAX_VALUE included). */
final class WireGenerators {
  private WireGenerators() {}

  private static final Gen<Long> U64 = longs().all();
  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789.-_/é";

  static long u64(RandomnessSource r) {
    return U64.generate(r);
  }

  static int between(RandomnessSource r, int lo, int hi) {
    return integers().between(lo, hi).generate(r);
  }

  static boolean bool(RandomnessSource r) {
    return booleans().all().generate(r);
  }

  /** Valid text: 1..8 characters, no surrounding whitespace. */
  static String text(RandomnessSource r) {
    int n = between(r, 1, 8);
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      b.append(ALPHABET.charAt(between(r, 0, ALPHABET.length() - 1)));
    }
    return b.toString();
  }

  static OptionalLong optionalU64(RandomnessSource r) {
    return bool(r) ? OptionalLong.of(u64(r)) : OptionalLong.empty();
  }

  static <E extends Enum<E>> E pick(RandomnessSource r, E[] values) {
    return values[between(r, 0, values.length - 1)];
  }

  /** A random subset in enum order; non-empty if asked. */
  static List<WorkerRole> roles(RandomnessSource r, boolean nonEmpty, Set<WorkerRole> allowed) {
    EnumSet<WorkerRole> set = EnumSet.noneOf(WorkerRole.class);
    for (WorkerRole role : allowed) {
      if (bool(r)) {
        set.add(role);
      }
    }
    if (nonEmpty && set.isEmpty()) {
      set.add(allowed.iterator().next());
    }
    return List.copyOf(set);
  }

  static final Gen<RelayIdentity> RELAYS = r -> new RelayIdentity(u64(r), u64(r));

  static DigestIdentity digest(RandomnessSource r) {
    byte[] d = new byte[16];
    for (int i = 0; i < 16; i++) {
      d[i] = (byte) between(r, 0, 255);
    }
    return new DigestIdentity(d, pick(r, IdentitySource.values()));
  }

  static KvPoolId poolId(RandomnessSource r) {
    return new KvPoolId(new IndexerDomainId(digest(r), digest(r)), DcId.of(u64(r)));
  }

  static final Gen<ProducerIdentity> PRODUCERS = r -> {
    long generation = u64(r);
    return new ProducerIdentity(poolId(r), u64(r), generation == 0 ? 1 : generation,
        CkfFormat.of(u64(r), 1L << between(r, 1, 24)));
  };

  static KvPoolDescriptor descriptor(RandomnessSource r, ProducerIdentity producer) {
    List<ModelRegistration> registrations = new ArrayList<>();
    int n = between(r, 0, 3);
    for (int i = 0; i < n; i++) {
      ModelTarget target = bool(r) ? new ModelTarget.Base(text(r)) : new ModelTarget.Lora(text(r), text(r));
      Set<String> aliases = new java.util.LinkedHashSet<>();
      int a = between(r, 0, 3);
      for (int j = 0; j < a; j++) {
        aliases.add(text(r));
      }
      registrations.add(new ModelRegistration(text(r), target, new ArrayList<>(aliases)));
    }
    return new KvPoolDescriptor(producer, new DynamoEndpointId(text(r), text(r), text(r)), registrations,
        new KvQuerySemantics(between(r, Integer.MIN_VALUE, Integer.MAX_VALUE) | 1,
            pick(r, KvQueryHashFormat.values())),
        roles(r, true, EnumSet.allOf(WorkerRole.class)));
  }

  static final Gen<KvPoolDescriptor> DESCRIPTORS = r -> descriptor(r, PRODUCERS.generate(r));

  static final Gen<CatalogSnapshot> CATALOGS = r -> {
    TreeMap<KvPoolId, KvPoolDescriptor> pools = new TreeMap<>();
    int n = between(r, 0, 4);
    for (int i = 0; i < n; i++) {
      KvPoolDescriptor d = DESCRIPTORS.generate(r);
      pools.put(d.poolId(), d);
    }
    return new CatalogSnapshot(RELAYS.generate(r), u64(r), new ArrayList<>(pools.values()));
  };

  static final Gen<PoolFrame> FRAMES = r -> {
    byte[] payload = new byte[between(r, 0, 64)];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) between(r, 0, 255);
    }
    // kinds 0..3 and unknown numbers (incl. negative ones) must all survive
    int kind = bool(r) ? between(r, 0, 3) : between(r, Integer.MIN_VALUE, Integer.MAX_VALUE);
    return new PoolFrame(1, 0x4B56_5231L, RELAYS.generate(r), PRODUCERS.generate(r), u64(r), u64(r), u64(r), kind,
        payload);
  };

  static TopologyEntry topologyEntry(RandomnessSource r, String namespace, String model) {
    List<TopologyMember> members = new ArrayList<>();
    Set<DynamoEndpointId> seen = new HashSet<>();
    int n = between(r, 1, 3);
    for (int i = 0; i < n; i++) {
      DynamoEndpointId endpoint = new DynamoEndpointId(namespace, text(r), text(r));
      if (seen.add(endpoint)) {
        members.add(new TopologyMember(endpoint, roles(r, true, EnumSet.allOf(WorkerRole.class)),
            bool(r) ? Optional.of(poolId(r)) : Optional.empty()));
      }
    }
    Map<String, AdapterReadiness> adapters = new LinkedHashMap<>();
    int a = between(r, 0, 2);
    for (int i = 0; i < a; i++) {
      String name = text(r);
      adapters.put(name, new AdapterReadiness(name, pick(r, ServingReadinessState.values()),
          roles(r, false, EnumSet.allOf(WorkerRole.class))));
    }
    return new TopologyEntry(namespace, model, pick(r, ServingReadinessState.values()),
        roles(r, false, EnumSet.allOf(WorkerRole.class)), roles(r, false, EnumSet.allOf(WorkerRole.class)),
        members, roles(r, false, EnumSet.of(WorkerRole.PREFILL, WorkerRole.DECODE)), bool(r),
        new ArrayList<>(adapters.values()));
  }

  static final Gen<TopologySnapshot> TOPOLOGIES = r -> {
    List<TopologyEntry> entries = new ArrayList<>();
    int n = between(r, 0, 3);
    for (int i = 0; i < n; i++) {
      entries.add(topologyEntry(r, text(r), text(r)));
    }
    long revision = u64(r);
    return new TopologySnapshot(revision == 0 ? 1 : revision, entries);
  };

  static long u32(RandomnessSource r) {
    return Integer.toUnsignedLong(between(r, Integer.MIN_VALUE, Integer.MAX_VALUE));
  }

  static final Gen<KvPoolLoadUpdate> POOL_LOADS = r -> {
    List<KvPoolLoadEntry> entries = new ArrayList<>();
    int n = between(r, 0, 4);
    for (int i = 0; i < n; i++) {
      entries.add(new KvPoolLoadEntry(PRODUCERS.generate(r), u64(r), u64(r), u32(r), u32(r)));
    }
    return new KvPoolLoadUpdate(u64(r), u64(r), u64(r), entries);
  };

  static PoolServingLoad poolServingLoad(RandomnessSource r, ProducerIdentity producer) {
    DataStatus status = pick(r, DataStatus.values());
    boolean complete = status == DataStatus.COMPLETE;
    TokenLoadStats tokens = TokenLoadStats.forPool(
        complete ? OptionalLong.of(u64(r)) : OptionalLong.empty(),
        complete ? OptionalLong.of(u64(r)) : OptionalLong.empty());
    PoolDeploymentStatus deployment = PoolDeploymentStatus.EMPTY;
    if (bool(r)) {
      long live = u64(r);
      deployment = new PoolDeploymentStatus(OptionalLong.of(live == 0 ? 1 : live), optionalU64(r));
    }
    return new PoolServingLoad(producer, new ServingLoadView(Optional.empty(), tokens, status, u64(r)), deployment);
  }

  static ModelServingLoad modelServingLoad(RandomnessSource r, String namespace, String model) {
    DataStatus status = pick(r, DataStatus.values());
    boolean complete = status == DataStatus.COMPLETE;
    RequestLifecycleStats requests = new RequestLifecycleStats(u64(r), u64(r), u64(r), u64(r),
        complete ? OptionalLong.of(u64(r)) : OptionalLong.empty(),
        complete ? OptionalLong.of(u64(r)) : OptionalLong.empty());
    TokenLoadStats tokens = TokenLoadStats.forModel(
        complete ? OptionalLong.of(u64(r)) : OptionalLong.empty(),
        complete ? OptionalLong.of(u64(r)) : OptionalLong.empty(), u64(r), u64(r));
    long expected = u64(r);
    long observed;
    switch (status) {
      case COMPLETE -> {
        expected = expected == 0 ? 1 : expected;
        observed = expected;
      }
      case DEGRADED -> {
        long o = u64(r);
        observed = o == 0 ? 1 : o;
      }
      default -> observed = 0;
    }
    Map<KvPoolId, Boolean> pools = new LinkedHashMap<>();
    int n = between(r, 0, 3);
    for (int i = 0; i < n; i++) {
      pools.put(poolId(r), true);
    }
    return new ModelServingLoad(namespace, model, new ServingLoadView(Optional.of(requests), tokens, status, u64(r)),
        new ModelDeploymentStatus(expected, observed, u64(r), new ArrayList<>(pools.keySet())));
  }

  static final Gen<ServingLoadUpdate> SERVING_LOADS = r -> {
    Map<ProducerIdentity, PoolServingLoad> pools = new LinkedHashMap<>();
    int n = between(r, 0, 3);
    for (int i = 0; i < n; i++) {
      ProducerIdentity p = PRODUCERS.generate(r);
      pools.put(p, poolServingLoad(r, p));
    }
    Map<List<String>, ModelServingLoad> models = new LinkedHashMap<>();
    int m = between(r, 0, 3);
    for (int i = 0; i < m; i++) {
      String ns = text(r);
      String model = text(r);
      models.put(List.of(ns, model), modelServingLoad(r, ns, model));
    }
    return new ServingLoadUpdate(u64(r), u64(r), u64(r), new ArrayList<>(pools.values()),
        new ArrayList<>(models.values()));
  };
}
