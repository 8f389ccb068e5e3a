package dev.kvrelay.grpc.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.FilterUpdateKind;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.KvPoolDescriptor;
import dev.kvrelay.grpc.proto.KvPoolLoadEntry;
import dev.kvrelay.grpc.proto.KvPoolLoadUpdate;
import dev.kvrelay.grpc.proto.PoolServingLoad;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import dev.kvrelay.grpc.proto.ServingLoadUpdate;
import dev.kvrelay.grpc.proto.ServingReadinessState;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.SubscribeServingLoadRequest;
import dev.kvrelay.grpc.proto.TopologyEntry;
import dev.kvrelay.grpc.proto.WorkerRole;
import dev.kvrelay.grpc.wire.RelayStatus;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server-visible conformance behaviours of wan-grpc.md §9 over real loopback h2c with plain grpc-java stubs,
 * one test each ({@code cNN_…}); fixture as in §9 (one pool "llama"/"chat", LEGACY, block 64, a live worker with
 * 100 KV blocks reporting 40 used).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KvEventRelayConformanceTest {
  static final int MARKER = 0x4B565231;

  // ------------------------------------------------------------------ helpers

  static KvPoolCatalogUpdate firstCatalogWithPool(ServerFixture f) throws Exception {
    f.awaitCatalog(c -> c.pools().size() == 1);
    ServerFixture.Collector<KvPoolCatalogUpdate> catalog = new ServerFixture.Collector<>();
    f.async.watchKvPoolCatalog(WireCodec.watchCatalogRequest("consumer-a/catalog"), catalog);
    KvPoolCatalogUpdate first = catalog.next();
    catalog.cancel();
    return first;
  }

  static ProducerIdentity catalogProducer(ServerFixture f) throws Exception {
    return firstCatalogWithPool(f).getSnapshot().getPools(0).getProducer();
  }

  static SubscribeKvPoolRequest subscribe(String subscriber, ProducerIdentity producer) {
    return SubscribeKvPoolRequest.newBuilder().setSubscriberId(subscriber).setExpectedProducer(producer)
        .setContractMarker(MARKER).build();
  }

  static ServerFixture.Collector<FilterUpdate> open(ServerFixture f, String subscriber, ProducerIdentity producer) {
    ServerFixture.Collector<FilterUpdate> c = new ServerFixture.Collector<>();
    f.async.subscribeKvPool(subscribe(subscriber, producer), c);
    return c;
  }

  static ByteBuffer le(ByteString payload) {
    return payload.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
  }

  /** CBI1 header epoch (offset 36). */
  static long epoch(FilterUpdate u) {
    return le(u.getPayload()).getLong(36);
  }

  static int flags(FilterUpdate u) {
    return le(u.getPayload()).getShort(6) & 0xFFFF;
  }

  /** Every snapshot word of a chunk (body: index u32, count u32, offset u64, then words). */
  static boolean allWordsZero(FilterUpdate chunk) {
    ByteBuffer b = le(chunk.getPayload());
    for (int off = 48 + 16; off < b.limit(); off += 8) {
      if (b.getLong(off) != 0) {
        return false;
      }
    }
    return true;
  }

  /** The snapshot's chunks (all carrying one sequence); returns them in order. */
  static List<FilterUpdate> snapshot(ServerFixture.Collector<FilterUpdate> pool) throws Exception {
    List<FilterUpdate> chunks = new ArrayList<>();
    FilterUpdate first = pool.next();
    assertThat(first.getKind()).isEqualTo(FilterUpdateKind.FILTER_UPDATE_KIND_SNAPSHOT_CHUNK);
    chunks.add(first);
    int count = le(first.getPayload()).getInt(52);
    for (int i = 1; i < count; i++) {
      chunks.add(pool.next());
    }
    return chunks;
  }

  static void assertStatus(Status status, @org.jspecify.annotations.Nullable String reason, Status.Code code,
      RelayErrorReason expected) {
    assertThat(status.getCode()).as("status %s", status).isEqualTo(code);
    assertThat(reason).isEqualTo(expected.wireName());
  }

  static void assertRejected(ServerFixture.Collector<?> call, Status.Code code, RelayErrorReason reason)
      throws Exception {
    Status s = call.awaitEnd();
    assertThat(call.messages).as("trailers-only rejection").isEmpty();
    assertStatus(s, call.reason(), code, reason);
  }

  // ------------------------------------------------------------------ C-numbers

  @Test
  void c01_getRelayInfoReturnsProtocolVersion1AndTheMarker() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      RelayInfo info = f.blocking.getRelayInfo(RelayInfoRequest.newBuilder().setContractMarker(MARKER).build());
      assertThat(info.getProtocolVersion()).isEqualTo(1);
      assertThat(info.getContractMarker()).isEqualTo(0x4B565231);
      assertThat(info.getRelay().getDrtInstanceId()).isEqualTo(f.engine.identity().drtInstanceId());
      assertThat(info.getRelay().getRelayIncarnation()).isEqualTo(f.engine.identity().relayIncarnation());
    }
  }

  @Test
  void c05_firstCatalogMessageListsTheLlamaPool() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      KvPoolCatalogUpdate u = firstCatalogWithPool(f);
      assertThat(u.getContractMarker()).isEqualTo(MARKER);
      assertThat(u.getProtocolVersion()).isEqualTo(1);
      assertThat(u.getSnapshot().getPoolsCount()).isEqualTo(1);
      KvPoolDescriptor d = u.getSnapshot().getPools(0);
      assertThat(d.getRegistrationsCount()).isEqualTo(1);
      assertThat(d.getRegistrations(0).getCanonicalModelId()).isEqualTo("llama");
      assertThat(d.getRegistrations(0).getAliasesList()).containsExactly("chat");
      assertThat(d.getPoolRolesList()).containsExactly(WorkerRole.WORKER_ROLE_LEGACY);
      assertThat(d.getQuerySemantics().getKvBlockSize()).isEqualTo(64);
    }
  }

  @Test
  void c06_subscribeYieldsACompleteAllZeroSnapshotWithEpochEqualSequence() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> pool = open(f, "consumer-a/ckf", producer);
      List<FilterUpdate> chunks = snapshot(pool);
      for (FilterUpdate c : chunks) {
        assertThat(c.getProducer()).isEqualTo(producer);
        assertThat(c.getBaseSequence()).isEqualTo(c.getSequence());
        assertThat(epoch(c)).isEqualTo(c.getSequence());
        assertThat(flags(c)).as("snapshot chunk flag").isEqualTo(1);
        assertThat(allWordsZero(c)).as("fresh pool mirror is all zero").isTrue();
        assertThat(c.getContractMarker()).isEqualTo(MARKER);
      }
      long buckets = producer.getCkfFormat().getBucketCount();
      assertThat(chunks).hasSize((int) ((buckets + 524_287) / 524_288));
      pool.cancel();
    }
  }

  @Test
  void c07_firstReadinessMessageHasOneReadyLegacyEntry() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      f.awaitReadiness(t -> t.entries().size() == 1 && t.entries().get(0).members().size() == 1
          && t.entries().get(0).members().get(0).poolId().isPresent());
      ServerFixture.Collector<ServingReadinessUpdate> r = new ServerFixture.Collector<>();
      f.async.subscribeServingReadiness(WireCodec.readinessRequest("consumer-a/readiness"), r);
      ServingReadinessUpdate u = r.next();
      assertThat(u.getContractMarker()).isEqualTo(MARKER);
      assertThat(u.getEntriesCount()).isEqualTo(1);
      TopologyEntry e = u.getEntries(0);
      assertThat(e.getCanonicalModelId()).isEqualTo("llama");
      assertThat(e.getState()).isEqualTo(ServingReadinessState.SERVING_READINESS_STATE_READY);
      assertThat(e.getLegacyFallbackActive()).isTrue();
      assertThat(e.getMembersCount()).isEqualTo(1);
      assertThat(e.getMembers(0).getRolesList()).containsExactly(WorkerRole.WORKER_ROLE_LEGACY);
      assertThat(e.getMembers(0).hasPoolId()).isTrue();
      r.cancel();
    }
  }

  @Test
  void c08_loadWindowListsThePoolWith40Of100Blocks() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Worker w = f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      ServerFixture.Collector<KvPoolLoadUpdate> load = new ServerFixture.Collector<>();
      f.async.subscribeKvPoolLoad(WireCodec.poolLoadRequest("consumer-a/load"), load);
      w.reportLoad(40);
      KvPoolLoadUpdate u = load.await(x -> x.getPoolsCount() == 1 && x.getPools(0).getKvObservedRanks() == 1);
      KvPoolLoadEntry e = u.getPools(0);
      assertThat(e.getProducer()).isEqualTo(producer);
      assertThat(e.getKvUsedBlocks()).isEqualTo(40);
      assertThat(e.getTotalKvBlocks()).isEqualTo(100);
      assertThat(e.getKvExpectedRanks()).isEqualTo(1);
      load.cancel();
    }
  }

  @Test
  void c09_oneStoreEventGivesAContiguousDeltaWithANonZeroBucket() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Worker w = f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> pool = open(f, "consumer-a/ckf", producer);
      long s = snapshot(pool).get(0).getSequence();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      FilterUpdate delta = null;
      long current = s;
      while (delta == null && System.nanoTime() < deadline) {
        w.storeBlock();
        FilterUpdate u = pool.messages.poll(100, TimeUnit.MILLISECONDS);
        while (u != null) {
          if (u.getKind() == FilterUpdateKind.FILTER_UPDATE_KIND_DELTA) {
            assertThat(u.getBaseSequence()).as("contiguous").isEqualTo(current);
            assertThat(u.getSequence()).isEqualTo(current + 1);
            current = u.getSequence();
            ByteBuffer b = le(u.getPayload());
            assertThat(flags(u)).as("delta flag").isEqualTo(2);
            assertThat(epoch(u)).as("epoch = sequence").isEqualTo(u.getSequence());
            assertThat(b.getLong(48)).as("base_epoch = base_sequence").isEqualTo(u.getBaseSequence());
            int images = b.getInt(56);
            for (int i = 0; i < images; i++) {
              if (b.getLong(60 + 12 * i + 4) != 0 && delta == null) {
                delta = u;
              }
            }
          }
          u = pool.messages.poll();
        }
      }
      assertThat(delta).as("a delta with a non-zero bucket").isNotNull();
      assertThat(delta.getProducer()).isEqualTo(producer);
      pool.cancel();
    }
  }

  @Test
  void c10_afterReplacementTheOldProducerIsRefusedWithProducerChanged() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Worker w = f.worker(1).start();
      ProducerIdentity old = catalogProducer(f);
      w.die();
      f.awaitCatalog(c -> c.pools().isEmpty());
      w.start();
      ProducerIdentity replacement = catalogProducer(f);
      assertThat(replacement).isNotEqualTo(old);
      assertThat(replacement.getPoolId()).isEqualTo(old.getPoolId());
      assertRejected(open(f, "consumer-a/ckf", old), Status.Code.FAILED_PRECONDITION, RelayErrorReason.PRODUCER_CHANGED);
    }
  }

  @Test
  void c11_newProducerStartsAtSequenceZeroAndTheOldStreamEndsWithoutIt() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Worker w = f.worker(1).start();
      ProducerIdentity old = catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> oldStream = open(f, "consumer-a/ckf", old);
      snapshot(oldStream);
      w.die();
      f.awaitCatalog(c -> c.pools().isEmpty());
      Status oldEnd = oldStream.awaitEnd();
      assertThat(oldEnd.isOk()).as("the retired generation's stream ends with an error").isFalse();
      w.start();
      ProducerIdentity replacement = catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> fresh = open(f, "consumer-a/ckf2", replacement);
      for (FilterUpdate c : snapshot(fresh)) {
        assertThat(c.getSequence()).isZero();
        assertThat(c.getProducer()).isEqualTo(replacement);
        assertThat(allWordsZero(c)).isTrue();
      }
      assertThat(oldStream.messages).allMatch(u -> u.getProducer().equals(old));
      fresh.cancel();
    }
  }

  @Test
  void c12_poolStreamLimitOneRejectsASecondAndReadmitsAfterTheFirstDrops() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config().maxPoolStreamsTotal(1))) {
      f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> first = open(f, "a", producer);
      snapshot(first);
      assertRejected(open(f, "b", producer), Status.Code.RESOURCE_EXHAUSTED, RelayErrorReason.RESOURCE_LIMIT);
      first.cancel();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (true) {
        ServerFixture.Collector<FilterUpdate> again = open(f, "c", producer);
        FilterUpdate u = again.messages.poll(200, TimeUnit.MILLISECONDS);
        if (u != null) {
          assertThat(u.getKind()).isEqualTo(FilterUpdateKind.FILTER_UPDATE_KIND_SNAPSHOT_CHUNK);
          again.cancel();
          break;
        }
        assertThat(again.awaitEnd().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(System.nanoTime()).as("readmitted in time").isLessThan(deadline);
      }
    }
  }

  @Test
  void c13_getRelayInfoWithMarkerZeroIsAContractMismatch() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
          () -> f.blocking.getRelayInfo(RelayInfoRequest.newBuilder().setContractMarker(0).build()));
      assertStatus(e.getStatus(), e.getTrailers().get(RelayStatus.REASON_KEY), Status.Code.FAILED_PRECONDITION,
          RelayErrorReason.CONTRACT_MISMATCH);
    }
  }

  @Test
  void c14_identityVersionPlusOneIsUnsupported() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      ProducerIdentity p = catalogProducer(f);
      ProducerIdentity bad = p.toBuilder().setPoolId(p.getPoolId().toBuilder()
          .setIdentityVersion(p.getPoolId().getIdentityVersion() + 1)).build();
      assertRejected(open(f, "a", bad), Status.Code.FAILED_PRECONDITION, RelayErrorReason.UNSUPPORTED_FEATURE);
    }
  }

  @Test
  void c15_layoutGenerationZeroIsInvalid() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      ProducerIdentity bad = catalogProducer(f).toBuilder().setLayoutGeneration(0).build();
      assertRejected(open(f, "a", bad), Status.Code.INVALID_ARGUMENT, RelayErrorReason.INVALID_REQUEST);
    }
  }

  @Test
  void c16_unknownDcIsPoolNotFoundAndAValidSubscribeStillWorks() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      ProducerIdentity p = catalogProducer(f);
      ProducerIdentity bad = p.toBuilder().setPoolId(p.getPoolId().toBuilder().setDcId(p.getPoolId().getDcId() + 1))
          .build();
      assertRejected(open(f, "a", bad), Status.Code.NOT_FOUND, RelayErrorReason.POOL_NOT_FOUND);
      ServerFixture.Collector<FilterUpdate> ok = open(f, "a", p);
      assertThat(snapshot(ok)).isNotEmpty();
      ok.cancel();
    }
  }

  @Test
  void c17_servingLoadChecksMarkerThenSubscriberId() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Collector<ServingLoadUpdate> marker = new ServerFixture.Collector<>();
      f.async.subscribeServingLoad(SubscribeServingLoadRequest.newBuilder().setSubscriberId("consumer-a")
          .setContractMarker(0).build(), marker);
      assertRejected(marker, Status.Code.FAILED_PRECONDITION, RelayErrorReason.CONTRACT_MISMATCH);
      ServerFixture.Collector<ServingLoadUpdate> empty = new ServerFixture.Collector<>();
      f.async.subscribeServingLoad(WireCodec.servingLoadRequest(""), empty);
      assertRejected(empty, Status.Code.INVALID_ARGUMENT, RelayErrorReason.INVALID_REQUEST);
      // §2.1: a bad marker wins over a bad subscriber id
      ServerFixture.Collector<ServingLoadUpdate> both = new ServerFixture.Collector<>();
      f.async.subscribeServingLoad(SubscribeServingLoadRequest.newBuilder().setSubscriberId("")
          .setContractMarker(0).build(), both);
      assertRejected(both, Status.Code.FAILED_PRECONDITION, RelayErrorReason.CONTRACT_MISMATCH);
    }
  }

  @Test
  void c18_firstServingLoadWindowIsEmptyAndSequencesGrowWithWindowMs10() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Collector<ServingLoadUpdate> s = new ServerFixture.Collector<>();
      f.async.subscribeServingLoad(WireCodec.servingLoadRequest("consumer-a/serving"), s);
      ServingLoadUpdate first = s.next();
      assertThat(first.getPoolsCount()).isZero();
      assertThat(first.getModelsCount()).isZero();
      assertThat(first.getWindowMs()).isEqualTo(10);
      long last = first.getWindowSequence();
      for (int i = 0; i < 3; i++) {
        ServingLoadUpdate next = s.next();
        assertThat(Long.compareUnsigned(next.getWindowSequence(), last)).isPositive();
        assertThat(next.getWindowMs()).isEqualTo(10);
        last = next.getWindowSequence();
      }
      s.cancel();
    }
  }

  @Test
  void c19_poolWithoutRouterReportsIsUnavailableWithOneLiveWorker() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      ServerFixture.Collector<ServingLoadUpdate> s = new ServerFixture.Collector<>();
      f.async.subscribeServingLoad(WireCodec.servingLoadRequest("consumer-a/serving"), s);
      ServingLoadUpdate u = s.await(x -> x.getPoolsCount() == 1);
      PoolServingLoad p = u.getPools(0);
      assertThat(p.getProducer()).isEqualTo(producer);
      assertThat(p.getLoad().getStatus()).isEqualTo(dev.kvrelay.grpc.proto.DataStatus.DATA_STATUS_UNAVAILABLE);
      assertThat(p.getLoad().getTokens().hasActiveDecodeBlocks()).isFalse();
      assertThat(p.getDeployment().hasLiveWorkers()).isTrue();
      assertThat(p.getDeployment().getLiveWorkers()).isEqualTo(1);
      assertThat(p.getDeployment().hasMaxConcurrency()).isFalse();
      s.cancel();
    }
  }

  @Test
  void c20_servingLoadLimitOneRejectsTheSecondWhilePoolLoadIsAdmitted() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config().maxServingLoadSubscribers(1))) {
      ServerFixture.Collector<ServingLoadUpdate> first = new ServerFixture.Collector<>();
      f.async.subscribeServingLoad(WireCodec.servingLoadRequest("a"), first);
      first.next();
      ServerFixture.Collector<ServingLoadUpdate> second = new ServerFixture.Collector<>();
      f.async.subscribeServingLoad(WireCodec.servingLoadRequest("b"), second);
      assertRejected(second, Status.Code.RESOURCE_EXHAUSTED, RelayErrorReason.RESOURCE_LIMIT);
      ServerFixture.Collector<KvPoolLoadUpdate> load = new ServerFixture.Collector<>();
      f.async.subscribeKvPoolLoad(WireCodec.poolLoadRequest("c"), load);
      assertThat(load.next().getContractMarker()).isEqualTo(MARKER);
      first.cancel();
      load.cancel();
    }
  }

  @Test
  void c21_subscriberIdRules() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Collector<KvPoolCatalogUpdate> ok = new ServerFixture.Collector<>();
      f.async.watchKvPoolCatalog(WireCodec.watchCatalogRequest("consumer-a"), ok);
      assertThat(ok.next().getContractMarker()).isEqualTo(MARKER);
      ok.cancel();
      for (String bad : List.of("", "x".repeat(129), "consumer\nspoof")) {
        ServerFixture.Collector<KvPoolCatalogUpdate> c = new ServerFixture.Collector<>();
        f.async.watchKvPoolCatalog(WireCodec.watchCatalogRequest(bad), c);
        assertRejected(c, Status.Code.INVALID_ARGUMENT, RelayErrorReason.INVALID_REQUEST);
      }
      ServerFixture.Collector<KvPoolCatalogUpdate> max = new ServerFixture.Collector<>();
      f.async.watchKvPoolCatalog(WireCodec.watchCatalogRequest("x".repeat(128)), max);
      assertThat(max.next().getContractMarker()).as("128 bytes is allowed").isEqualTo(MARKER);
      max.cancel();
    }
  }

  @Test
  void c22_poolLimit65AdmitsSixtyFiveRejectsTheNextAndReadmitsAfterARelease() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config().maxPoolStreamsTotal(65)
        .maxSubscribersPerPool(100))) {
      f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      List<ServerFixture.Collector<FilterUpdate>> streams = new ArrayList<>();
      for (int i = 0; i < 65; i++) {
        streams.add(open(f, "s" + i, producer));
      }
      for (ServerFixture.Collector<FilterUpdate> s : streams) {
        assertThat(s.next().getKind()).isEqualTo(FilterUpdateKind.FILTER_UPDATE_KIND_SNAPSHOT_CHUNK);
      }
      ServerFixture.Collector<FilterUpdate> over = open(f, "s65", producer);
      assertRejected(over, Status.Code.RESOURCE_EXHAUSTED, RelayErrorReason.RESOURCE_LIMIT);
      assertThat(over.awaitEnd().getDescription()).isEqualTo("Relay total pool stream limit 65 reached");
      streams.remove(0).cancel();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (true) {
        ServerFixture.Collector<FilterUpdate> again = open(f, "again", producer);
        FilterUpdate u = again.messages.poll(200, TimeUnit.MILLISECONDS);
        if (u != null) {
          streams.add(again);
          break;
        }
        assertThat(again.awaitEnd().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(System.nanoTime()).as("readmitted in time").isLessThan(deadline);
      }
      streams.forEach(ServerFixture.Collector::cancel);
    }
  }
}
