package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class GlobalViewTest {
  static final long CONSUMER = 23;
  static final CkfFormat FORMAT = CkfFormat.of(0x5EEDL, 256);
  static final long MAX_AGE_US = 1_000;
  static final RelayIdentity RELAY = new RelayIdentity(0x1111L, 0x2222L);
  static final DynamoEndpointId ENDPOINT = new DynamoEndpointId("prod", "backend", "generate");
  static final IndexerDomainId DOMAIN = domain(1);
  static final KvQuerySemantics STD4 = new KvQuerySemantics(4, KvQueryHashFormat.DYNAMO_STANDARD_V1);
  static final ModelRegistration LLAMA = new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of());

  // ---------------------------------------------------------------- fixture helpers

  static IndexerDomainId domain(int tag) {
    byte[] a = new byte[16];
    byte[] b = new byte[16];
    Arrays.fill(a, (byte) tag);
    Arrays.fill(b, (byte) (tag + 100));
    return new IndexerDomainId(new DigestIdentity(a, IdentitySource.EXPLICIT),
        new DigestIdentity(b, IdentitySource.EXPLICIT));
  }

  static ProducerIdentity producer(IndexerDomainId domain, long dc, long incarnation, CkfFormat format) {
    return new ProducerIdentity(new KvPoolId(domain, DcId.of(dc)), incarnation, 1, format);
  }

  static KvPoolDescriptor descriptor(ProducerIdentity producer, KvQuerySemantics semantics,
      List<ModelRegistration> registrations) {
    return new KvPoolDescriptor(producer, ENDPOINT, registrations, semantics, List.of(WorkerRole.DECODE));
  }

  static KvPoolDescriptor descriptor(long dc) {
    return descriptor(producer(DOMAIN, dc, 7, FORMAT), STD4, List.of(LLAMA));
  }

  static GlobalView view(KvQuerySemantics semantics) {
    return GlobalView.create(CONSUMER, DOMAIN, FORMAT, semantics, MAX_AGE_US);
  }

  static int[] tokens(int from, int toInclusive) {
    int[] t = new int[toInclusive - from + 1];
    for (int i = 0; i < t.length; i++) {
      t[i] = from + i;
    }
    return t;
  }

  /**
   * Installs in {@code pool}'s lane a snapshot of a real producer that stored {@code blockHashes} (one
   * Stored event from the root), through CBI1 frames and a {@link PoolReplica}; records activity at
   * {@code nowUs}.
   */
  static PoolReplica install(GlobalView view, KvPoolDescriptor pool, long[] blockHashes, long nowUs) {
    try {
      CkfProducer producer = CkfProducer.create(CkfProducerConfig.of(FORMAT, 500, 1));
      if (blockHashes.length > 0) {
        StoredBatch batch = new StoredBatch().reset(1, 0);
        for (int i = 0; i < blockHashes.length; i++) {
          batch.addBlock(0x9E37_79B9_7F4A_7C15L * (i + 1) + pool.poolId().dcId().value(), blockHashes[i]);
        }
        producer.stored(batch);
      }
      GlobalCkfLaneIngestor<KvPoolId> lane = view.claimLane(pool.poolId());
      assertThat(lane).isNotNull();
      PoolReplica replica = new PoolReplica(lane, 1_000_000_000L);
      int laneNo = view.laneOf(pool.poolId());
      assertThat(replica.bind(pool.producer(), new LaneLease(CONSUMER, laneNo, 1), null, nowUs))
          .isEqualTo(LaneAssignmentResult.ASSIGNED);
      BarrierSnapshot barrier = producer.snapshotAfterBarrier(1);
      long s = barrier.snapshot().sequence();
      for (byte[] chunk : Cbi1Encoder.encodeSnapshot(FORMAT, pool.poolId().dcId().value(), s,
          barrier.snapshot().words())) {
        replica.apply(PoolFrame.of(RELAY, pool.producer(), s, s, 1, PoolFrame.Kind.SNAPSHOT_CHUNK, chunk), nowUs);
      }
      assertThat(replica.state()).isEqualTo(ReplicaState.LIVE);
      assertThat(view.recordActivity(pool.poolId(), nowUs)).isTrue();
      return replica;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static long[] prefix(long[] hashes, int n) {
    return Arrays.copyOf(hashes, n);
  }

  static int depthOf(GlobalViewAnswer answer, KvPoolId pool) {
    for (GlobalViewMatch m : answer.matches()) {
      if (m.pool().equals(pool)) {
        return m.depthBlocks();
      }
    }
    return -1;
  }

  // ---------------------------------------------------------------- multi-DC

  @Test
  void multiDcEachDcHoldsADifferentPrefixOfOneRequest() throws Exception {
    GlobalView view = view(STD4);
    int[] request = tokens(100, 100 + 4 * 12 - 1); // 12 blocks
    long[] blocks = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, 4).blockHashes(request);
    assertThat(blocks).hasSize(12);
    int[] held = {12, 0, 5, 1, 9};
    List<KvPoolDescriptor> pools = new ArrayList<>();
    for (int i = 0; i < held.length; i++) {
      KvPoolDescriptor d = descriptor(1000 + i);
      assertThat(view.assign(d).outcome()).isEqualTo(GlobalViewAssignment.Outcome.ASSIGNED);
      pools.add(d);
    }
    for (int i = 0; i < held.length; i++) {
      install(view, pools.get(i), prefix(blocks, held[i]), 50);
    }
    GlobalViewAnswer answer = view.query(request, new ModelTarget.Base("llama"), 60);
    assertThat(answer.status()).isEqualTo(GlobalViewAnswer.Status.ANSWERED);
    assertThat(answer.matches()).hasSize(held.length);
    for (int i = 0; i < held.length; i++) {
      GlobalViewMatch m = answer.matches().get(i);
      assertThat(m.pool()).isEqualTo(pools.get(i).poolId());
      assertThat(m.dcId()).isEqualTo(DcId.of(1000 + i));
      assertThat(m.depthBlocks()).as("dc %d", 1000 + i).isEqualTo(held[i]);
      assertThat(m.matchedTokens()).isEqualTo(4L * held[i]);
    }
    // A request that diverges after 3 blocks: each DC matches min(held, 3).
    int[] diverging = request.clone();
    diverging[3 * 4 + 1] = 999_999;
    GlobalViewAnswer second = view.query(diverging, "llama", 60);
    for (int i = 0; i < held.length; i++) {
      assertThat(depthOf(second, pools.get(i).poolId())).isEqualTo(Math.min(held[i], 3));
    }
  }

  // ---------------------------------------------------------------- spec worked examples (runtime-inputs §7.4)

  @Test
  void workedExampleStandardBs4Tokens0to7DepthTwoEightTokens() {
    GlobalView view = view(STD4);
    KvPoolDescriptor d = descriptor(5);
    view.assign(d);
    // runtime-inputs.md §7.4 computed vector: block hashes of 0..7 bs 4.
    install(view, d, new long[] {9143094415614847814L, Long.parseUnsignedLong("12124091508212882195")}, 0);
    GlobalViewAnswer a = view.query(tokens(0, 7), new ModelTarget.Base("llama"), 1);
    assertThat(a.matches()).containsExactly(new GlobalViewMatch(d.poolId(), 0, 2, 8));
    // 0..8 (tail dropped) is the same request.
    assertThat(view.query(tokens(0, 8), "llama", 1).matches())
        .containsExactly(new GlobalViewMatch(d.poolId(), 0, 2, 8));
    // [1,2,3,4] bs 4 is a different first block: depth 0, still reported.
    assertThat(view.query(new int[] {1, 2, 3, 4}, "llama", 1).matches())
        .containsExactly(new GlobalViewMatch(d.poolId(), 0, 0, 0));
  }

  @Test
  void workedExampleEagleBs2Tokens0to5UsesBlockPlusOneWindows() {
    KvQuerySemantics eagle = new KvQuerySemantics(2, KvQueryHashFormat.DYNAMO_EAGLE_V1);
    GlobalView view = view(eagle);
    KvPoolDescriptor d = descriptor(producer(DOMAIN, 9, 7, FORMAT), eagle, List.of(LLAMA));
    view.assign(d);
    // runtime-inputs.md §7.4 computed vector: 0..5 bs 2 EAGLE block hashes.
    install(view, d, new long[] {Long.parseUnsignedLong("11646242937812223497"), Long.parseUnsignedLong("9948816348502404300")}, 0);
    assertThat(view.query(tokens(0, 5), "llama", 0).matches())
        .containsExactly(new GlobalViewMatch(d.poolId(), 0, 2, 4));

    // The same pool stores the standard-window hashes: an EAGLE query does not match them.
    GlobalView standardStored = view(eagle);
    standardStored.assign(d);
    install(standardStored, d, new long[] {Long.parseUnsignedLong("10918435022357402928"),
        Long.parseUnsignedLong("10731123482949079648"), Long.parseUnsignedLong("12189426826560619506")}, 0);
    assertThat(standardStored.query(tokens(0, 5), "llama", 0).matches())
        .containsExactly(new GlobalViewMatch(d.poolId(), 0, 0, 0));
  }

  @Test
  void workedExampleStandardBs2Tokens0to5ThreeBlocks() {
    KvQuerySemantics std2 = new KvQuerySemantics(2, KvQueryHashFormat.DYNAMO_STANDARD_V1);
    GlobalView view = view(std2);
    KvPoolDescriptor d = descriptor(producer(DOMAIN, 9, 7, FORMAT), std2, List.of(LLAMA));
    view.assign(d);
    install(view, d, new long[] {Long.parseUnsignedLong("10918435022357402928"),
        Long.parseUnsignedLong("10731123482949079648"), Long.parseUnsignedLong("12189426826560619506")}, 0);
    assertThat(view.query(tokens(0, 5), "llama", 0).matches())
        .containsExactly(new GlobalViewMatch(d.poolId(), 0, 3, 6));
  }

  /**
   * Decision needed (runtime-inputs.md §7.1, LoRA / cache-namespace salt): follows variant (a), additive
   * salt; wan-grpc.md §7.4 step 8: a LoRA target salts with the canonical adapter, never an alias or the
   * registration's canonical model id.
   */
  @Test
  void decisionLoraSaltVariantAUsesCanonicalAdapterNeverAlias() {
    GlobalView view = view(STD4);
    ModelRegistration lora = new ModelRegistration("llama-tenant",
        new ModelTarget.Lora("llama", "adapter-a"), List.of("adapter-b", "tenant-alias"));
    KvPoolDescriptor d = descriptor(producer(DOMAIN, 11, 7, FORMAT), STD4, List.of(LLAMA, lora));
    view.assign(d);
    // runtime-inputs.md §7.4 computed vector: 0..7 bs 4, lora adapter-a.
    install(view, d, new long[] {6665157333201000639L, Long.parseUnsignedLong("11721812545976571723")}, 0);
    GlobalViewMatch two = new GlobalViewMatch(d.poolId(), 0, 2, 8);
    GlobalViewMatch zero = new GlobalViewMatch(d.poolId(), 0, 0, 0);
    assertThat(view.query(tokens(0, 7), new ModelTarget.Lora("llama", "adapter-a"), 0).matches())
        .containsExactly(two);
    assertThat(view.query(tokens(0, 7), "llama-tenant", 0).matches()).containsExactly(two);
    // Base target of the same pool: unsalted hashes do not match the LoRA-salted filter.
    assertThat(view.query(tokens(0, 7), new ModelTarget.Base("llama"), 0).matches()).containsExactly(zero);
    // An alias is not a target: no pool registers Lora(llama, adapter-b), and aliases are not canonical ids.
    assertThat(view.query(tokens(0, 7), new ModelTarget.Lora("llama", "adapter-b"), 0).status())
        .isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);
    assertThat(view.query(tokens(0, 7), "tenant-alias", 0).status())
        .isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);
  }

  @Test
  void saltOfBaseIsNoneAndOfLoraIsTheAdapterVector() {
    assertThat(GlobalView.saltOf(new ModelTarget.Base("llama")).seed()).isEqualTo(1337L);
    assertThat(GlobalView.saltOf(new ModelTarget.Lora("llama", "adapter-a")).seed())
        .isEqualTo(8842669519798868182L);
  }

  // ---------------------------------------------------------------- refusals (typed, no state change)

  private static void assertRefused(GlobalView view, KvPoolDescriptor d, GlobalViewRefusal reason) {
    long generation = view.generation();
    int count = view.poolCount();
    Object indexer = view.indexer();
    GlobalViewAssignment a = view.assign(d);
    assertThat(a.outcome()).isEqualTo(GlobalViewAssignment.Outcome.REFUSED);
    assertThat(a.refusal()).isEqualTo(reason);
    assertThat(a.lane()).isEqualTo(-1);
    assertThat(view.generation()).isEqualTo(generation);
    assertThat(view.poolCount()).isEqualTo(count);
    assertThat(view.indexer()).isSameAs(indexer);
    assertThat(view.laneOf(d.poolId())).isEqualTo(d.poolId().dcId().value() == 1 ? 0 : -1);
  }

  @Test
  void refusesDifferentDomainFormatSemanticsDuplicateDcAndFull() {
    GlobalView view = view(STD4);
    assertThat(view.assign(descriptor(1)).lane()).isEqualTo(0);
    assertRefused(view, descriptor(producer(domain(2), 2, 7, FORMAT), STD4, List.of(LLAMA)),
        GlobalViewRefusal.DIFFERENT_DOMAIN);
    assertRefused(view, descriptor(producer(DOMAIN, 2, 7, CkfFormat.of(0x5EEDL, 512)), STD4, List.of(LLAMA)),
        GlobalViewRefusal.DIFFERENT_FORMAT);
    assertRefused(view, descriptor(producer(DOMAIN, 2, 7, CkfFormat.of(0x5EEEL, 256)), STD4, List.of(LLAMA)),
        GlobalViewRefusal.DIFFERENT_FORMAT);
    assertRefused(view, descriptor(producer(DOMAIN, 2, 7, FORMAT),
        new KvQuerySemantics(8, KvQueryHashFormat.DYNAMO_STANDARD_V1), List.of(LLAMA)),
        GlobalViewRefusal.DIFFERENT_QUERY_SEMANTICS);
    assertRefused(view, descriptor(producer(DOMAIN, 2, 7, FORMAT),
        new KvQuerySemantics(4, KvQueryHashFormat.DYNAMO_EAGLE_V1), List.of(LLAMA)),
        GlobalViewRefusal.DIFFERENT_QUERY_SEMANTICS);
    // Same dc, new producer incarnation: the owner must remove the old pool first.
    assertRefused(view, descriptor(producer(DOMAIN, 1, 8, FORMAT), STD4, List.of(LLAMA)),
        GlobalViewRefusal.DUPLICATE_DC);
    for (int dc = 2; dc <= 16; dc++) {
      GlobalViewAssignment a = view.assign(descriptor(dc));
      assertThat(a.outcome()).isEqualTo(GlobalViewAssignment.Outcome.ASSIGNED);
      assertThat(a.lane()).isEqualTo(dc - 1);
    }
    assertThat(view.poolCount()).isEqualTo(16);
    assertRefused(view, descriptor(17), GlobalViewRefusal.FULL);
  }

  @Test
  void sameProducerAgainOnlyUpdatesMetadataAndKeepsTheIndexer() {
    GlobalView view = view(STD4);
    KvPoolDescriptor d = descriptor(3);
    view.assign(d);
    Object indexer = view.indexer();
    long generation = view.generation();
    ModelRegistration other = new ModelRegistration("mistral", new ModelTarget.Base("mistral"), List.of());
    KvPoolDescriptor updated = descriptor(d.producer(), STD4, List.of(LLAMA, other));
    GlobalViewAssignment a = view.assign(updated);
    assertThat(a.outcome()).isEqualTo(GlobalViewAssignment.Outcome.UPDATED);
    assertThat(a.lane()).isZero();
    assertThat(view.generation()).isEqualTo(generation);
    assertThat(view.indexer()).isSameAs(indexer);
    assertThat(view.descriptor(0)).isEqualTo(updated);
  }

  @Test
  void removeFreesTheLaneAndPublishesANewGenerationUnknownPoolChangesNothing() {
    GlobalView view = view(STD4);
    KvPoolDescriptor a = descriptor(1);
    KvPoolDescriptor b = descriptor(2);
    view.assign(a);
    view.assign(b);
    assertThat(view.generation()).isEqualTo(2);
    assertThat(view.remove(descriptor(99).poolId())).isFalse();
    assertThat(view.generation()).isEqualTo(2);
    assertThat(view.remove(a.poolId())).isTrue();
    assertThat(view.generation()).isEqualTo(3);
    assertThat(view.laneOf(a.poolId())).isEqualTo(-1);
    assertThat(view.laneOf(b.poolId())).isEqualTo(1);
    assertThat(view.indexer().manifest().configuredLanes()).isEqualTo(0b10);
    assertThat(view.assign(descriptor(3)).lane()).isZero();
    assertThat(view.remove(b.poolId())).isTrue();
    assertThat(view.remove(descriptor(3).poolId())).isTrue();
    assertThat(view.indexer()).isNull();
    assertThat(view.query(tokens(0, 7), "llama", 0).status()).isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);
  }

  // ---------------------------------------------------------------- readiness and freshness

  @Test
  void staleAndNotReadyLanesAreSkipped() {
    GlobalView view = view(STD4);
    int[] request = tokens(0, 7);
    long[] blocks = {9143094415614847814L, Long.parseUnsignedLong("12124091508212882195")};
    KvPoolDescriptor fresh = descriptor(1);
    KvPoolDescriptor old = descriptor(2);
    KvPoolDescriptor syncing = descriptor(3);
    view.assign(fresh);
    view.assign(old);
    view.assign(syncing);
    install(view, fresh, blocks, 10_000);
    install(view, old, blocks, 5_000);
    // Not ready: activity recorded but no snapshot installed.
    assertThat(view.recordActivity(syncing.poolId(), 10_000)).isTrue();
    GlobalViewAnswer a = view.query(request, "llama", 6_000); // both within max-age 1000 of 5000? old: 1000
    assertThat(a.matches()).extracting(GlobalViewMatch::pool).containsExactly(fresh.poolId(), old.poolId());
    GlobalViewAnswer b = view.query(request, "llama", 6_001); // old is 1001 µs old: stale
    assertThat(b.matches()).containsExactly(new GlobalViewMatch(fresh.poolId(), 0, 2, 8));
    GlobalViewAnswer c = view.query(request, "llama", 11_001); // everything stale
    assertThat(c.status()).isEqualTo(GlobalViewAnswer.Status.UNAVAILABLE);
    assertThat(c.matches()).isEmpty();
    assertThat(view.recordActivity(old.poolId(), 11_000)).isTrue();
    assertThat(view.query(request, "llama", 11_001).matches())
        .containsExactly(new GlobalViewMatch(old.poolId(), 1, 2, 8));
  }

  @Test
  void poolWithoutActivityIsStaleEvenWhenReady() {
    GlobalView view = view(STD4);
    KvPoolDescriptor d = descriptor(1);
    view.assign(d);
    install(view, d, new long[] {1, 2}, 0);
    view.assign(descriptor(2)); // new generation: the activity and the indexer start over
    assertThat(view.query(tokens(0, 7), "llama", 0).status()).isEqualTo(GlobalViewAnswer.Status.UNAVAILABLE);
  }

  // ---------------------------------------------------------------- bad input

  @Test
  void unknownModelNeverQueriesAnyPool() {
    GlobalView view = view(STD4);
    KvPoolDescriptor d = descriptor(1);
    view.assign(d);
    install(view, d, new long[] {9143094415614847814L}, 0);
    assertThat(view.query(tokens(0, 7), new ModelTarget.Base("mistral"), 0))
        .isEqualTo(new GlobalViewAnswer(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL, List.of(), 1));
    assertThat(view.query(tokens(0, 7), "mistral", 0).status())
        .isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);
  }

  @Test
  void nullRequestIsATypedInvalidRequestAndUnknownPoolsAreRefused() {
    GlobalView view = view(STD4);
    view.assign(descriptor(1));
    assertThat(view.query(null, "llama", 0).status()).isEqualTo(GlobalViewAnswer.Status.INVALID_REQUEST);
    assertThat(view.query(tokens(0, 3), (ModelTarget) null, 0).status())
        .isEqualTo(GlobalViewAnswer.Status.INVALID_REQUEST);
    assertThat(view.query(tokens(0, 3), (String) null, 0).status())
        .isEqualTo(GlobalViewAnswer.Status.INVALID_REQUEST);
    assertThat(view.recordActivity(descriptor(2).poolId(), 0)).isFalse();
    assertThat(view.descriptor(16)).isNull();
    assertThat(view.descriptor(-1)).isNull();
    try {
      assertThat(view.claimLane(descriptor(2).poolId())).isNull();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void emptyAndShortRequestsAnswerDepthZero() {
    GlobalView view = view(STD4);
    KvPoolDescriptor d = descriptor(1);
    view.assign(d);
    install(view, d, new long[] {9143094415614847814L}, 0);
    assertThat(view.query(new int[0], "llama", 0).matches()).containsExactly(new GlobalViewMatch(d.poolId(), 0, 0, 0));
    assertThat(view.query(tokens(0, 2), "llama", 0).matches())
        .containsExactly(new GlobalViewMatch(d.poolId(), 0, 0, 0));
  }

  @Test
  void poolsSaltedPerOwnRegistrationWhenOneCanonicalIdMapsToDifferentTargets() {
    GlobalView view = view(STD4);
    KvPoolDescriptor base = descriptor(producer(DOMAIN, 1, 7, FORMAT), STD4,
        List.of(new ModelRegistration("chat", new ModelTarget.Base("llama"), List.of())));
    KvPoolDescriptor lora = descriptor(producer(DOMAIN, 2, 7, FORMAT), STD4,
        List.of(new ModelRegistration("chat", new ModelTarget.Lora("llama", "adapter-a"), List.of())));
    view.assign(base);
    view.assign(lora);
    // runtime-inputs.md §7.4 computed vectors: 0..7 bs 4 unsalted, and salted with lora adapter-a.
    install(view, base, new long[] {9143094415614847814L, Long.parseUnsignedLong("12124091508212882195")}, 0);
    install(view, lora, new long[] {6665157333201000639L, Long.parseUnsignedLong("11721812545976571723")}, 0);
    assertThat(view.query(tokens(0, 7), "chat", 0).matches()).containsExactly(
        new GlobalViewMatch(base.poolId(), 0, 2, 8), new GlobalViewMatch(lora.poolId(), 1, 2, 8));
    assertThat(view.query(tokens(0, 7), new ModelTarget.Lora("llama", "adapter-a"), 0).matches())
        .containsExactly(new GlobalViewMatch(lora.poolId(), 1, 2, 8));
  }

  @Test
  void deltaFromTheRealProducerDeepensTheMatch() throws Exception {
    GlobalView view = view(STD4);
    KvPoolDescriptor d = descriptor(4);
    view.assign(d);
    int[] request = tokens(0, 4 * 6 - 1);
    long[] blocks = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, 4).blockHashes(request);
    CkfProducer producer = CkfProducer.create(CkfProducerConfig.of(FORMAT, 500, 1));
    StoredBatch first = new StoredBatch().reset(1, 0);
    for (int i = 0; i < 2; i++) {
      first.addBlock(100 + i, blocks[i]);
    }
    producer.stored(first);
    PoolReplica replica = new PoolReplica(view.claimLane(d.poolId()), 1_000_000_000L);
    replica.bind(d.producer(), new LaneLease(CONSUMER, 0, 1), null, 0);
    BarrierSnapshot barrier = producer.snapshotAfterBarrier(1);
    long s = barrier.snapshot().sequence();
    for (byte[] chunk : Cbi1Encoder.encodeSnapshot(FORMAT, 4, s, barrier.snapshot().words())) {
      replica.apply(PoolFrame.of(RELAY, d.producer(), s, s, 1, PoolFrame.Kind.SNAPSHOT_CHUNK, chunk), 0);
    }
    view.recordActivity(d.poolId(), 0);
    assertThat(view.query(request, "llama", 0).matches()).containsExactly(new GlobalViewMatch(d.poolId(), 0, 2, 8));
    StoredBatch more = new StoredBatch().reset(1, 0).parent(101);
    for (int i = 2; i < 5; i++) {
      more.addBlock(100 + i, blocks[i]);
    }
    producer.stored(more);
    CkfDelta delta = (CkfDelta) producer.drain();
    byte[] payload = Cbi1Encoder.encodeDelta(FORMAT, 4, delta.baseSequence(), delta.sequence(), delta.buckets(),
        delta.words(), delta.buckets().length);
    assertThat(replica.apply(PoolFrame.of(RELAY, d.producer(), delta.baseSequence(), delta.sequence(), 2,
        PoolFrame.Kind.DELTA, payload), 500).outcome()).isEqualTo(PoolReplica.Outcome.DELTA_APPLIED);
    view.recordActivity(d.poolId(), 500);
    assertThat(view.query(request, "llama", 1_400).matches())
        .containsExactly(new GlobalViewMatch(d.poolId(), 0, 5, 20));
  }
}
