package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.IndexerIdentity;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.ModelCard;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the membership task. Projects the current set of model cards onto one
 * {@link EndpointMembership} per serving endpoint ({@code producer.md} §2.2 steps 1–10), then fences
 * endpoints that claim the same PoolId (§2.5).
 *
 * <p>The only state kept between projections is the previous view and the next membership generation
 * (starts at 1): a membership that equals its previous value in every field but the generation keeps the
 * previous generation; any other membership, including one that disappeared and reappears, takes the next
 * generation. Cards outside the discovery scope (§8.1) are ignored. Equal records given twice count once;
 * two different base cards with the same key are two base cards of one worker (§2.2 step 5).
 */
public final class MembershipProjector {

  static final String LORA_SHAPE_MISMATCH = "LoRA discovery identity and card metadata disagree";
  static final String MULTIPLE_DOMAINS = "endpoint resolves to multiple indexer domains";
  static final String MULTIPLE_BASE_MODELS = "endpoint resolves to multiple canonical base models";
  static final String MULTIPLE_BASE_CARDS = "worker publishes multiple base model cards";
  static final String INVALID_MODEL = "invalid canonical model id";
  static final String INVALID_ADAPTER_IDS = "invalid LoRA served name or adapter name";
  static final String ADAPTER_TARGET_CONFLICT = "served adapter name resolves to conflicting targets";
  static final String ADAPTER_CAPACITY_CONFLICT = "worker publishes conflicting adapter capacity";
  static final String AMBIGUOUS_BINDING = "model name is bound to multiple serving targets";

  private static final Comparator<ModelKey> KEY_ORDER = Comparator.comparing(ModelKey::endpoint)
      .thenComparing(ModelKey::instanceId, Long::compareUnsigned)
      .thenComparing(ModelKey::suffix, Comparator.nullsFirst(WireText.CODE_POINT_ORDER));
  private static final Comparator<ModelRecord> RECORD_ORDER = Comparator.comparing(ModelRecord::key, KEY_ORDER)
      .thenComparing(r -> Json.write(r.rawCard()), WireText.CODE_POINT_ORDER);

  private final DcId dcId;
  private final DiscoveryScope scope;
  private MembershipView previous;
  private long nextGeneration = 1;

  /**
   * @param dcId this relay's DC (PoolIds of the collision pass)
   * @param scope the discovery scope; cards of endpoints outside it are ignored
   */
  public MembershipProjector(DcId dcId, DiscoveryScope scope) {
    this.dcId = Objects.requireNonNull(dcId, "dcId");
    this.scope = Objects.requireNonNull(scope, "scope");
    this.previous = MembershipView.empty(dcId);
  }

  /** The last projected view (empty before the first projection). */
  public MembershipView current() {
    return previous;
  }

  /** The generation the next changed membership will take. */
  public long nextGeneration() {
    return nextGeneration;
  }

  /** Projects the complete current set of model cards; the result becomes {@link #current()}. */
  public MembershipView project(Collection<ModelRecord> records) {
    TreeSet<ModelRecord> sorted = new TreeSet<>(RECORD_ORDER);
    for (ModelRecord r : new LinkedHashSet<>(records)) {
      if (scope.matchesEndpoint(r.key().endpoint())) {
        sorted.add(r);
      }
    }
    TreeMap<DynamoEndpointId, List<ModelRecord>> byEndpoint = new TreeMap<>();
    for (ModelRecord r : sorted) {
      byEndpoint.computeIfAbsent(r.key().endpoint(), e -> new ArrayList<>()).add(r);
    }
    List<EndpointDraft> drafts = new ArrayList<>();
    for (Map.Entry<DynamoEndpointId, List<ModelRecord>> e : byEndpoint.entrySet()) {
      drafts.add(EndpointDraft.of(e.getKey(), e.getValue()));
    }
    Set<String> ambiguous = ambiguousNames(drafts);
    TreeMap<DynamoEndpointId, EndpointMembership> built = new TreeMap<>();
    for (EndpointDraft d : drafts) {
      built.put(d.endpoint, d.build(ambiguous));
    }
    rejectDuplicateLivePools(built);
    TreeMap<DynamoEndpointId, EndpointMembership> numbered = new TreeMap<>();
    for (EndpointMembership m : built.values()) {
      EndpointMembership old = previous.endpoints().get(m.endpoint());
      long generation = old != null && old.equalsIgnoringGeneration(m) ? old.generation() : nextGeneration++;
      numbered.put(m.endpoint(), m.withGeneration(generation));
    }
    previous = new MembershipView(dcId, numbered);
    return previous;
  }

  /** §2.2 step 7: names bound to more than one (model, target) across every watched endpoint. */
  private static Set<String> ambiguousNames(List<EndpointDraft> drafts) {
    Map<String, Set<Binding>> bindings = new HashMap<>();
    for (EndpointDraft d : drafts) {
      for (Claim c : d.claims) {
        Binding b = new Binding(c.model, c.target);
        bindings.computeIfAbsent(c.model, k -> new HashSet<>()).add(b);
        for (String alias : c.aliases) {
          bindings.computeIfAbsent(alias, k -> new HashSet<>()).add(b);
        }
      }
    }
    Set<String> ambiguous = new HashSet<>();
    for (Map.Entry<String, Set<Binding>> e : bindings.entrySet()) {
      if (e.getValue().size() > 1) {
        ambiguous.add(e.getKey());
      }
    }
    return ambiguous;
  }

  /** §2.5: every materializable endpoint sharing a PoolId with another gets a PoolMaterialization conflict. */
  private void rejectDuplicateLivePools(SortedMap<DynamoEndpointId, EndpointMembership> built) {
    TreeMap<KvPoolId, List<DynamoEndpointId>> byPool = new TreeMap<>();
    for (EndpointMembership m : built.values()) {
      if (m.isMaterializable()) {
        byPool.computeIfAbsent(m.poolId(dcId).orElseThrow(), p -> new ArrayList<>()).add(m.endpoint());
      }
    }
    for (Map.Entry<KvPoolId, List<DynamoEndpointId>> e : byPool.entrySet()) {
      if (e.getValue().size() < 2) {
        continue;
      }
      for (DynamoEndpointId endpoint : e.getValue()) {
        MembershipConflict c = new MembershipConflict(ConflictScope.POOL_MATERIALIZATION,
            new ConflictSubject.Endpoint(endpoint), duplicatePoolReason(e.getKey()));
        EndpointMembership m = Objects.requireNonNull(built.get(endpoint), "byPool holds endpoints of built");
        built.put(endpoint, m.withConflicts(List.of(c)));
      }
    }
  }

  /** The §2.5 reason text for a colliding pool. */
  static String duplicatePoolReason(KvPoolId pool) {
    return "pool " + pool + " is claimed by multiple serving endpoints";
  }

  static List<MembershipConflict> sortedDistinct(Collection<MembershipConflict> a, Collection<MembershipConflict> b) {
    TreeSet<MembershipConflict> set = new TreeSet<>();
    set.addAll(a);
    set.addAll(b);
    return new ArrayList<>(set);
  }

  /** Immutable and thread-safe: a registration claim before federation-wide ambiguity removal. */
  record Claim(String model, ModelTarget target, List<String> aliases) {}

  /** Immutable and thread-safe: {@code BindingIdentity{model, target}}. */
  record Binding(String model, ModelTarget target) {}

  /** Not thread-safe: confined to one projection; steps 1–6 of one endpoint. */
  static final class EndpointDraft {
    final DynamoEndpointId endpoint;
    final List<MembershipConflict> conflicts = new ArrayList<>();
    final List<Claim> claims = new ArrayList<>();
    final TreeMap<Long, RuntimeConfig> runtimeConfigs = new TreeMap<>(Long::compareUnsigned);
    final TreeMap<Long, WorkerTopology> topology = new TreeMap<>(Long::compareUnsigned);
    final TreeMap<String, AdapterBuilder> adapters = new TreeMap<>(WireText.CODE_POINT_ORDER);
    @Nullable EndpointDomain domain;

    private EndpointDraft(DynamoEndpointId endpoint) {
      this.endpoint = endpoint;
    }

    static EndpointDraft of(DynamoEndpointId endpoint, List<ModelRecord> records) {
      EndpointDraft d = new EndpointDraft(endpoint);
      List<ModelRecord> bases = new ArrayList<>();
      List<ModelRecord> adapterCards = new ArrayList<>();
      for (ModelRecord r : records) {
        boolean suffix = r.hasSuffix();
        boolean lora = r.card().isAdapter();
        if (suffix && lora) {
          adapterCards.add(r);
        } else if (!suffix && !lora) {
          bases.add(r);
        } else {
          d.conflict(ConflictScope.SERVING_BINDING, new ConflictSubject.Card(r.key()), LORA_SHAPE_MISMATCH);
        }
      }
      d.resolveBases(bases);
      d.resolveAdapters(adapterCards);
      return d;
    }

    void conflict(ConflictScope scope, ConflictSubject subject, String reason) {
      conflicts.add(new MembershipConflict(scope, subject, reason));
    }

    private void resolveBases(List<ModelRecord> bases) {
      boolean allResolved = true;
      Set<EndpointDomain> domains = new HashSet<>();
      Set<String> validModels = new TreeSet<>(WireText.CODE_POINT_ORDER);
      TreeMap<Long, List<ModelRecord>> byWorker = new TreeMap<>(Long::compareUnsigned);
      for (ModelRecord r : bases) {
        ModelCard card = r.card().normalizedLegacyPrefill();
        try {
          IndexerDomainId id = IndexerIdentity.fromCard(card.sourcePath(), card.displayName(),
              card.kvCacheBlockSize(), card.runtimeConfig().enableEagle(), endpoint, card.indexerSemantics(),
              card.indexerRoutingScope());
          domains.add(new EndpointDomain(id, new KvQuerySemantics((int) card.kvCacheBlockSize(), card.hashFormat())));
        } catch (WireValidationException e) {
          allResolved = false;
          conflict(ConflictScope.POOL_MATERIALIZATION, new ConflictSubject.Card(r.key()),
              "indexer domain cannot be resolved: " + e.detail());
        }
        if (WireText.isValid(card.displayName())) {
          validModels.add(card.displayName());
        }
        byWorker.computeIfAbsent(r.key().instanceId(), w -> new ArrayList<>()).add(new ModelRecord(r.key(), card, r.rawCard()));
      }
      if (domains.size() > 1) {
        conflict(ConflictScope.POOL_MATERIALIZATION, new ConflictSubject.Endpoint(endpoint), MULTIPLE_DOMAINS);
      } else if (allResolved && domains.size() == 1) {
        domain = domains.iterator().next();
      }
      if (validModels.size() > 1) {
        conflict(ConflictScope.SERVING_TOPOLOGY, new ConflictSubject.Endpoint(endpoint), MULTIPLE_BASE_MODELS);
      }
      for (Map.Entry<Long, List<ModelRecord>> e : byWorker.entrySet()) {
        long worker = e.getKey();
        if (e.getValue().size() != 1) {
          conflict(ConflictScope.SERVING_TOPOLOGY, new ConflictSubject.Worker(endpoint, worker), MULTIPLE_BASE_CARDS);
          continue;
        }
        ModelRecord r = e.getValue().get(0);
        ModelCard card = r.card();
        if (!WireText.isValid(card.displayName())) {
          conflict(ConflictScope.SERVING_BINDING, new ConflictSubject.Card(r.key()), INVALID_MODEL);
          continue;
        }
        runtimeConfigs.put(worker, card.runtimeConfig());
        topology.put(worker, new WorkerTopology(card.workerType(), card.modelTypeFlags(), card.needs()));
        String model = card.displayName();
        claims.add(new Claim(model, new ModelTarget.Base(model), validAliases(card.aliases(), model)));
        baseModelByWorker.put(worker, model);
      }
    }

    final Map<Long, String> baseModelByWorker = new HashMap<>();

    private void resolveAdapters(List<ModelRecord> cards) {
      for (ModelRecord r : cards) {
        long worker = r.key().instanceId();
        String base = baseModelByWorker.get(worker);
        if (base == null) {
          continue; // orphan adapter: ignored (warning only)
        }
        ModelCard card = r.card();
        ModelCard.Lora lora = Objects.requireNonNull(card.lora());
        String served = card.displayName();
        String adapter = lora.name();
        if (!WireText.isValid(served) || !WireText.isValid(adapter)) {
          conflict(ConflictScope.SERVING_BINDING, new ConflictSubject.Card(r.key()), INVALID_ADAPTER_IDS);
          continue;
        }
        AdapterBuilder existing = adapters.get(served);
        if (existing == null) {
          existing = new AdapterBuilder(base, adapter);
          adapters.put(served, existing);
        } else if (!existing.baseModel.equals(base) || !existing.adapter.equals(adapter)) {
          conflict(ConflictScope.SERVING_BINDING, new ConflictSubject.Card(r.key()), ADAPTER_TARGET_CONFLICT);
          continue;
        }
        OptionalLong capacity = lora.maxGpuLoraCount();
        OptionalLong known = existing.workers.get(worker);
        if (known != null && !known.equals(capacity)) {
          conflict(ConflictScope.POOL_MATERIALIZATION, new ConflictSubject.Worker(endpoint, worker),
              ADAPTER_CAPACITY_CONFLICT);
        } else {
          existing.workers.put(worker, capacity);
        }
        claims.add(new Claim(served, new ModelTarget.Lora(base, adapter), validAliases(card.aliases(), served)));
      }
    }

    /** Steps 7 (removal) to 9. */
    EndpointMembership build(Set<String> ambiguous) {
      TreeMap<Binding, TreeSet<String>> grouped = new TreeMap<>(
          Comparator.comparing(Binding::model, WireText.CODE_POINT_ORDER).thenComparing(Binding::target));
      for (Claim c : claims) {
        if (ambiguous.contains(c.model)) {
          conflict(ConflictScope.SERVING_BINDING, new ConflictSubject.Binding(c.model), AMBIGUOUS_BINDING);
          continue;
        }
        TreeSet<String> aliases =
            grouped.computeIfAbsent(new Binding(c.model, c.target), b -> new TreeSet<>(WireText.CODE_POINT_ORDER));
        for (String alias : c.aliases) {
          if (!ambiguous.contains(alias)) {
            aliases.add(alias);
          }
        }
      }
      List<ModelRegistration> registrations = new ArrayList<>();
      TreeSet<String> models = new TreeSet<>(WireText.CODE_POINT_ORDER);
      TreeSet<String> allAliases = new TreeSet<>(WireText.CODE_POINT_ORDER);
      Set<String> survivingAdapters = new HashSet<>();
      for (Map.Entry<Binding, TreeSet<String>> e : grouped.entrySet()) {
        ModelRegistration reg =
            ModelRegistration.normalized(e.getKey().model, e.getKey().target, new ArrayList<>(e.getValue()));
        registrations.add(reg);
        models.add(reg.canonicalModelId());
        allAliases.addAll(reg.aliases());
        if (reg.target() instanceof ModelTarget.Lora) {
          survivingAdapters.add(reg.canonicalModelId());
        }
      }
      registrations.sort(Comparator.naturalOrder());
      TreeMap<String, AdapterMembership> adapterMemberships = new TreeMap<>(WireText.CODE_POINT_ORDER);
      for (Map.Entry<String, AdapterBuilder> e : adapters.entrySet()) {
        if (survivingAdapters.contains(e.getKey())) {
          AdapterBuilder a = e.getValue();
          adapterMemberships.put(e.getKey(), new AdapterMembership(a.baseModel, a.adapter, a.workers));
        }
      }
      EnumSet<WorkerRole> roles = EnumSet.noneOf(WorkerRole.class);
      for (WorkerTopology t : topology.values()) {
        roles.add(t.workerType());
      }
      return new EndpointMembership(endpoint, domain, registrations, new ArrayList<>(models),
          new ArrayList<>(allAliases), new ArrayList<>(roles), runtimeConfigs, topology, adapterMemberships,
          sortedDistinct(conflicts, List.of()), 0);
    }

    /** Valid aliases: non-empty, no surrounding whitespace, not the model itself; sorted, distinct. */
    static List<String> validAliases(List<String> aliases, String model) {
      TreeSet<String> out = new TreeSet<>(WireText.CODE_POINT_ORDER);
      for (String a : aliases) {
        if (WireText.isValid(a) && !a.equals(model)) {
          out.add(a);
        }
      }
      return new ArrayList<>(out);
    }
  }

  /** Not thread-safe: confined to one projection; an adapter under construction. */
  static final class AdapterBuilder {
    final String baseModel;
    final String adapter;
    final TreeMap<Long, OptionalLong> workers = new TreeMap<>(Long::compareUnsigned);

    AdapterBuilder(String baseModel, String adapter) {
      this.baseModel = baseModel;
      this.adapter = adapter;
    }
  }
}
