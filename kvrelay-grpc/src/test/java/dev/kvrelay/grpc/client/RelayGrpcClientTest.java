package dev.kvrelay.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

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
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolDeploymentStatus;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.PoolServingLoad;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadView;
import dev.kvrelay.engine.wire.TokenLoadStats;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RelayGrpcClientTest {
  static final RelayIdentity RELAY = new RelayIdentity(0x1111_2222_3333_4444L, 0x8000_0000_0000_0005L);
  static final CkfFormat FORMAT = CkfFormat.of(0x5EEDL, 256);
  static final DynamoEndpointId ENDPOINT = new DynamoEndpointId("prod", "backend", "generate");
  static final KvQuerySemantics STD4 = new KvQuerySemantics(4, KvQueryHashFormat.DYNAMO_STANDARD_V1);
  static final ModelRegistration LLAMA = new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of());
  static final long T = 30; // seconds: every wait is bounded; only a failing test waits this long (a 14 MiB stream under load took > 5 s once)

  /** The spec's reason → status code table (wan-grpc.md §2.2), written out independently of the code. */
  static final Map<RelayErrorReason, Status.Code> SPEC_CODES = Map.ofEntries(
      Map.entry(RelayErrorReason.CONTRACT_MISMATCH, Status.Code.FAILED_PRECONDITION),
      Map.entry(RelayErrorReason.INVALID_REQUEST, Status.Code.INVALID_ARGUMENT),
      Map.entry(RelayErrorReason.UNSUPPORTED_FEATURE, Status.Code.FAILED_PRECONDITION),
      Map.entry(RelayErrorReason.POOL_NOT_FOUND, Status.Code.NOT_FOUND),
      Map.entry(RelayErrorReason.PRODUCER_CHANGED, Status.Code.FAILED_PRECONDITION),
      Map.entry(RelayErrorReason.RESOURCE_LIMIT, Status.Code.RESOURCE_EXHAUSTED),
      Map.entry(RelayErrorReason.SUBSCRIBER_LAGGED, Status.Code.RESOURCE_EXHAUSTED),
      Map.entry(RelayErrorReason.SNAPSHOT_PROGRESS_TIMEOUT, Status.Code.RESOURCE_EXHAUSTED),
      Map.entry(RelayErrorReason.PUBLICATION_UNAVAILABLE, Status.Code.UNAVAILABLE),
      Map.entry(RelayErrorReason.INVALID_PUBLICATION, Status.Code.FAILED_PRECONDITION),
      Map.entry(RelayErrorReason.INTERNAL, Status.Code.INTERNAL));

  static IndexerDomainId domain(int tag) {
    byte[] a = new byte[16];
    byte[] b = new byte[16];
    Arrays.fill(a, (byte) tag);
    Arrays.fill(b, (byte) (tag + 100));
    return new IndexerDomainId(new DigestIdentity(a, IdentitySource.EXPLICIT),
        new DigestIdentity(b, IdentitySource.EXPLICIT));
  }

  static ProducerIdentity producer(long dc) {
    return new ProducerIdentity(new KvPoolId(domain(1), DcId.of(dc)), 7, 1, FORMAT);
  }

  static KvPoolDescriptor descriptor(long dc) {
    return new KvPoolDescriptor(producer(dc), ENDPOINT, List.of(LLAMA), STD4, List.of(WorkerRole.DECODE));
  }

  static TopologyEntry readyEntry(String model) {
    return new TopologyEntry("prod", model, ServingReadinessState.READY, List.of(WorkerRole.DECODE), List.of(),
        List.of(new TopologyMember(ENDPOINT, List.of(WorkerRole.DECODE), Optional.of(producer(41).poolId()))),
        List.of(), false, List.of());
  }

  /** The server-side error the spec prescribes for {@code reason}: its code plus the ASCII reason trailer. */
  static Throwable status(RelayErrorReason reason) {
    Metadata trailers = new Metadata();
    trailers.put(Metadata.Key.of("kv-relay-error-reason", Metadata.ASCII_STRING_MARSHALLER),
        "RELAY_ERROR_REASON_" + reason.name());
    return SPEC_CODES.get(reason).toStatus().withDescription("scripted " + reason).asRuntimeException(trailers);
  }

  static <T> T next(RelayStream<T> stream) throws Exception {
    T v = stream.poll(T, TimeUnit.SECONDS);
    assertThat(v).as("a message within %s s", T).isNotNull();
    return v;
  }

  static RelayException failure(RelayStream<?> stream) {
    Throwable t = catchThrowable(() -> {
      for (int i = 0; i < 100; i++) {
        if (stream.poll(T, TimeUnit.SECONDS) == null) {
          break;
        }
      }
    });
    assertThat(t).isInstanceOf(RelayException.class);
    return (RelayException) t;
  }

  // ================================================================ GetRelayInfo

  @Test
  void getRelayInfoSendsTheMarkerAndReturnsTheRelayIdentity() throws Exception {
    ScriptedRelay relay = new ScriptedRelay();
    relay.info = (q, out) -> {
      out.onNext(WireCodec.relayInfo(RELAY));
      out.onCompleted();
    };
    try (InProcessRelay r = new InProcessRelay(relay)) {
      assertThat(r.client.getRelayInfo()).isEqualTo(RELAY);
      assertThat(((dev.kvrelay.grpc.proto.RelayInfoRequest) relay.requests.get(0)).getContractMarker())
          .isEqualTo(0x4B565231);
    }
  }

  @Test
  void getRelayInfoWithABadMarkerOrVersionIsContractMismatch() throws Exception {
    for (Function<RelayInfo.Builder, RelayInfo.Builder> edit : List.<Function<RelayInfo.Builder, RelayInfo.Builder>>of(
        b -> b.setContractMarker(0x4B565232), b -> b.setProtocolVersion(2), RelayInfo.Builder::clearRelay)) {
      ScriptedRelay relay = new ScriptedRelay();
      relay.info = (q, out) -> {
        out.onNext(edit.apply(WireCodec.relayInfo(RELAY).toBuilder()).build());
        out.onCompleted();
      };
      try (InProcessRelay r = new InProcessRelay(relay)) {
        assertThatThrownBy(r.client::getRelayInfo).isInstanceOfSatisfying(RelayException.class,
            e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.CONTRACT_MISMATCH));
      }
    }
  }

  @Test
  void getRelayInfoHasADeadline() throws Exception {
    ScriptedRelay relay = new ScriptedRelay();
    relay.info = (q, out) -> { }; // never answers
    try (InProcessRelay r = new InProcessRelay(relay,
        RelayGrpcClient.builder().infoDeadline(Duration.ofMillis(100)))) {
      long start = System.nanoTime();
      assertThatThrownBy(r.client::getRelayInfo).isInstanceOfSatisfying(RelayException.class,
          e -> {
            assertThat(e.getMessage()).contains("DEADLINE_EXCEEDED");
            // no trailer: the status-code fallback (wan-grpc.md §2.2) treats it as unavailable
            assertThat(e.reason()).isEqualTo(RelayErrorReason.PUBLICATION_UNAVAILABLE);
          });
      assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(T));
    }
  }

  @Test
  void getRelayInfoErrorCarriesTheTrailerReason() throws Exception {
    ScriptedRelay relay = new ScriptedRelay();
    relay.info = (q, out) -> out.onError(status(RelayErrorReason.CONTRACT_MISMATCH));
    try (InProcessRelay r = new InProcessRelay(relay)) {
      assertThatThrownBy(r.client::getRelayInfo).isInstanceOfSatisfying(RelayException.class,
          e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.CONTRACT_MISMATCH));
    }
  }

  // ================================================================ message mapping

  @Test
  void catalogUpdatesArriveAsCatalogUpdatesWhoseDescriptorsValidateToTheOriginals() throws Exception {
    List<KvPoolDescriptor> pools = List.of(descriptor(41), descriptor(42));
    ScriptedRelay relay = new ScriptedRelay();
    relay.catalog = ScriptedRelay.sendAndComplete(List.of(
        WireCodec.toProto(new CatalogSnapshot(RELAY, 0, List.of())),
        WireCodec.toProto(new CatalogSnapshot(RELAY, 3, pools))));
    try (InProcessRelay r = new InProcessRelay(relay); RelayStream<CatalogUpdate> s = r.client.watchCatalog("me/catalog")) {
      CatalogUpdate empty = next(s);
      assertThat(empty.revision()).isZero();
      assertThat(empty.pools()).isEmpty();
      CatalogUpdate u = next(s);
      assertThat(u.relay()).isEqualTo(RELAY);
      assertThat(u.revision()).isEqualTo(3);
      assertThat(u.contractMarker()).isEqualTo(0x4B565231L);
      assertThat(u.protocolVersion()).isEqualTo(1);
      List<KvPoolDescriptor> received = new ArrayList<>();
      for (DescriptorWire w : u.pools()) {
        received.add(CatalogValidator.validate(w));
      }
      assertThat(received).isEqualTo(pools);
      assertThat(s.poll(T, TimeUnit.SECONDS)).isNull();
      assertThat(s.isFinished()).isTrue();
      assertThat(((WatchKvPoolCatalogRequest) relay.requests.get(0)).getSubscriberId()).isEqualTo("me/catalog");
    }
  }

  @Test
  void poolFramesArriveFieldForFieldAndTheRequestCarriesTheExpectedProducer() throws Exception {
    ProducerIdentity p = producer(41);
    List<PoolFrame> sent = List.of(
        PoolFrame.of(RELAY, p, 9, 9, 11, PoolFrame.Kind.SNAPSHOT_CHUNK, new byte[] {1, 2, 3}),
        PoolFrame.of(RELAY, p, 9, 10, 12, PoolFrame.Kind.DELTA, new byte[] {4, 5}),
        PoolFrame.of(RELAY, p, 10, 10, 13, PoolFrame.Kind.HEARTBEAT, new byte[0]),
        new PoolFrame(1, 0x4B565231L, RELAY, p, -1L, -1L, -1L, 77, new byte[] {9})); // unknown kind, u64 max
    ScriptedRelay relay = new ScriptedRelay();
    relay.pool = ScriptedRelay.sendAndComplete(sent.stream().map(WireCodec::toProto).toList());
    try (InProcessRelay r = new InProcessRelay(relay)) {
      RelayStream<PoolFrame> s = r.client.subscribePool(p.poolId(), p, "me/ckf").get(T, TimeUnit.SECONDS);
      for (PoolFrame want : sent) {
        PoolFrame got = next(s);
        assertThat(got).usingRecursiveComparison().ignoringFields("payload").isEqualTo(want);
        assertThat(got.payload()).isEqualTo(want.payload());
      }
      assertThat(s.poll(T, TimeUnit.SECONDS)).isNull();
      assertThat(s.isFinished()).isTrue();
      SubscribeKvPoolRequest q = (SubscribeKvPoolRequest) relay.requests.get(0);
      assertThat(q.getSubscriberId()).isEqualTo("me/ckf");
      assertThat(WireCodec.producer(q.getExpectedProducer())).isEqualTo(p);
      assertThat(q.getContractMarker()).isEqualTo(0x4B565231);
    }
  }

  @Test
  void readinessArrivesAsTopologySnapshots() throws Exception {
    TopologySnapshot first = new TopologySnapshot(1, List.of(readyEntry("llama")));
    TopologySnapshot second = new TopologySnapshot(2, List.of(readyEntry("llama"), readyEntry("mistral")));
    ScriptedRelay relay = new ScriptedRelay();
    relay.readiness = ScriptedRelay.sendAndComplete(
        List.of(WireCodec.toProto(RELAY, first), WireCodec.toProto(RELAY, second)));
    try (InProcessRelay r = new InProcessRelay(relay); RelayStream<TopologySnapshot> s = r.client.watchReadiness("me")) {
      assertThat(next(s)).isEqualTo(first);
      assertThat(next(s)).isEqualTo(second);
      assertThat(s.poll(T, TimeUnit.SECONDS)).isNull();
      assertThat(s.isFinished()).isTrue();
    }
  }

  /** Pinned choice (see WireDecoders): an entry that fails TopologyEntryValidator ends the stream, never dropped. */
  @Test
  void readinessWithAnUnsupportedOrMalformedEntryFailsWithInvalidPublicationAfterTheGoodMessages() throws Exception {
    TopologySnapshot good = new TopologySnapshot(1, List.of(readyEntry("llama")));
    var unknownState = WireCodec.toProto(RELAY, new TopologySnapshot(2, List.of(readyEntry("llama")))).toBuilder();
    unknownState.setEntries(0, unknownState.getEntries(0).toBuilder().setStateValue(99));
    var noMembers = WireCodec.toProto(RELAY, new TopologySnapshot(2, List.of(readyEntry("llama")))).toBuilder();
    noMembers.setEntries(0, noMembers.getEntries(0).toBuilder().clearMembers());
    var revisionZero = WireCodec.toProto(RELAY, good).toBuilder().setRevision(0);
    for (var bad : List.of(unknownState, noMembers, revisionZero)) {
      ScriptedRelay relay = new ScriptedRelay();
      relay.readiness = ScriptedRelay.sendAndComplete(List.of(WireCodec.toProto(RELAY, good), bad.build()));
      try (InProcessRelay r = new InProcessRelay(relay);
          RelayStream<TopologySnapshot> s = r.client.watchReadiness("me")) {
        assertThat(next(s)).isEqualTo(good);
        assertThat(failure(s).reason()).isEqualTo(RelayErrorReason.INVALID_PUBLICATION);
        assertThat(s.isFinished()).isTrue();
        assertThat(r.client.stats().rejectedMessages()).isEqualTo(1);
      }
    }
  }

  @Test
  void readinessUpdatesKeepAnUnsupportedEntryForTheViewToQuarantineAndStillCheckTheEnvelope() throws Exception {
    var unknownState = WireCodec.toProto(RELAY, new TopologySnapshot(2,
        List.of(readyEntry("llama"), readyEntry("mistral")))).toBuilder();
    unknownState.setEntries(0, unknownState.getEntries(0).toBuilder().setStateValue(99));
    ScriptedRelay relay = new ScriptedRelay();
    relay.readiness = ScriptedRelay.sendAndComplete(
        List.of(unknownState.build(), unknownState.clone().setContractMarker(1).build()));
    try (InProcessRelay r = new InProcessRelay(relay);
        RelayStream<dev.kvrelay.engine.wire.ReadinessUpdate> s = r.client.watchReadinessUpdates("me")) {
      dev.kvrelay.engine.wire.ReadinessUpdate update = next(s);
      assertThat(update.revision()).isEqualTo(2);
      assertThat(update.entries().size() + update.quarantined().size()).isEqualTo(2);
      dev.kvrelay.engine.consumer.ReadinessViewProbe view = new dev.kvrelay.engine.consumer.ReadinessViewProbe();
      view.apply(update, 1);
      assertThat(view.snapshot().entries()).containsOnlyKeys(new dev.kvrelay.engine.wan.ModelKey("prod", "mistral"));
      assertThat(view.snapshot().quarantined()).containsOnlyKeys(new dev.kvrelay.engine.wan.ModelKey("prod", "llama"));
      assertThat(failure(s).reason()).isEqualTo(RelayErrorReason.CONTRACT_MISMATCH);
    }
  }

  @Test
  void readinessUpdatesQuarantineEachInvalidEntryOnItsOwnAndTheStreamGoesOn() throws Exception {
    var mixed = WireCodec.toProto(RELAY, new TopologySnapshot(2,
        List.of(readyEntry("llama"), readyEntry("mistral"), readyEntry("qwen"), readyEntry("phi")))).toBuilder();
    mixed.setEntries(0, mixed.getEntries(0).toBuilder().setStateValue(99));
    mixed.setEntries(2, mixed.getEntries(2).toBuilder().clearMembers());
    mixed.setEntries(3, mixed.getEntries(3).toBuilder().setNamespace(""));
    TopologySnapshot next = new TopologySnapshot(3, List.of(readyEntry("llama")));
    ScriptedRelay relay = new ScriptedRelay();
    relay.readiness = ScriptedRelay.sendAndComplete(List.of(mixed.build(), WireCodec.toProto(RELAY, next),
        WireCodec.toProto(RELAY, next).toBuilder().setRevision(0).build()));
    try (InProcessRelay r = new InProcessRelay(relay);
        RelayStream<dev.kvrelay.engine.wire.ReadinessUpdate> s = r.client.watchReadinessUpdates("me")) {
      dev.kvrelay.engine.wire.ReadinessUpdate first = next(s);
      assertThat(first.revision()).isEqualTo(2);
      assertThat(first.entries()).containsExactly(readyEntry("mistral"));
      assertThat(first.quarantined()).containsOnlyKeys(new dev.kvrelay.engine.wan.ModelKey("prod", "llama"),
          new dev.kvrelay.engine.wan.ModelKey("prod", "qwen"));
      assertThat(first.quarantined().get(new dev.kvrelay.engine.wan.ModelKey("prod", "llama")))
          .startsWith("UNSUPPORTED");
      assertThat(first.quarantined().get(new dev.kvrelay.engine.wan.ModelKey("prod", "qwen")))
          .startsWith("MALFORMED");
      assertThat(first.dropped()).as("the entry with an empty namespace has no readable key").isEqualTo(1);
      assertThat(next(s)).isEqualTo(dev.kvrelay.engine.wire.ReadinessUpdate.of(next));
      assertThat(failure(s).reason()).isEqualTo(RelayErrorReason.INVALID_PUBLICATION);
      assertThat(r.client.stats().quarantinedReadinessEntries()).isEqualTo(3);
      assertThat(r.client.stats().rejectedMessages()).isEqualTo(1);

      dev.kvrelay.engine.consumer.ReadinessViewProbe view = new dev.kvrelay.engine.consumer.ReadinessViewProbe();
      view.apply(first, 1);
      assertThat(view.snapshot().entries()).containsOnlyKeys(new dev.kvrelay.engine.wan.ModelKey("prod", "mistral"));
      assertThat(view.snapshot().quarantined()).hasSize(2);
      assertThat(view.droppedTotal()).isEqualTo(1);
    }
  }

  @Test
  void poolLoadArrivesAsWindowsAndEntriesWithAnInvalidProducerAreDroppedAndCounted() throws Exception {
    KvPoolLoadEntry a = new KvPoolLoadEntry(producer(41), 10, 100, 2, 4);
    KvPoolLoadEntry b = new KvPoolLoadEntry(producer(42), -1L, -1L, 0xFFFF_FFFFL, 1);
    var window = WireCodec.toProto(RELAY, new KvPoolLoadUpdate(5, 1_700_000_000_000L, 1000, List.of(a, b, a)))
        .toBuilder();
    // the third entry loses its ckf_format: malformed producer, cannot join a catalog pool
    window.setPools(2, window.getPools(2).toBuilder().setProducer(
        window.getPools(2).getProducer().toBuilder().clearCkfFormat()));
    ScriptedRelay relay = new ScriptedRelay();
    relay.poolLoad = ScriptedRelay.sendAndComplete(List.of(window.build()));
    try (InProcessRelay r = new InProcessRelay(relay); RelayStream<KvPoolLoadUpdate> s = r.client.watchPoolLoad("me")) {
      assertThat(next(s)).isEqualTo(new KvPoolLoadUpdate(5, 1_700_000_000_000L, 1000, List.of(a, b)));
      assertThat(r.client.stats().excludedPoolLoadEntries()).isEqualTo(1);
    }
  }

  @Test
  void servingLoadArrivesValidatedAndExcludedEntriesAreCounted() throws Exception {
    PoolServingLoad a = new PoolServingLoad(producer(41), new ServingLoadView(Optional.empty(),
        TokenLoadStats.forPool(OptionalLong.of(5), OptionalLong.of(6)), DataStatus.COMPLETE, 1234),
        PoolDeploymentStatus.EMPTY);
    PoolServingLoad b = new PoolServingLoad(producer(42), new ServingLoadView(Optional.empty(),
        TokenLoadStats.forPool(OptionalLong.of(1), OptionalLong.of(2)), DataStatus.COMPLETE, 99),
        PoolDeploymentStatus.EMPTY);
    var window = WireCodec.toProto(RELAY, new ServingLoadUpdate(3, 77, 1000, List.of(a, b), List.of())).toBuilder();
    window.setPools(1, window.getPools(1).toBuilder().setLoad(window.getPools(1).getLoad().toBuilder().setStatusValue(0)));
    ScriptedRelay relay = new ScriptedRelay();
    relay.servingLoad = ScriptedRelay.sendAndComplete(List.of(window.build()));
    try (InProcessRelay r = new InProcessRelay(relay);
        RelayStream<ServingLoadUpdate> s = r.client.watchServingLoad("me")) {
      assertThat(next(s)).isEqualTo(new ServingLoadUpdate(3, 77, 1000, List.of(a), List.of()));
      assertThat(r.client.stats().excludedServingPools()).isEqualTo(1);
    }
  }

  // ================================================================ envelope checks

  enum Envelope { MARKER, VERSION, RELAY }

  @ParameterizedTest
  @EnumSource(Envelope.class)
  void aBadEnvelopeOnReadinessOrLoadFailsThatStreamWithContractMismatch(Envelope broken) throws Exception {
    TopologySnapshot good = new TopologySnapshot(1, List.of(readyEntry("llama")));
    var readiness = WireCodec.toProto(RELAY, good).toBuilder();
    var poolLoad = WireCodec.toProto(RELAY, new KvPoolLoadUpdate(1, 1, 1, List.of())).toBuilder();
    var serving = WireCodec.toProto(RELAY, new ServingLoadUpdate(1, 1, 1, List.of(), List.of())).toBuilder();
    switch (broken) {
      case MARKER -> {
        readiness.setContractMarker(0x314B5652);
        poolLoad.setContractMarker(0);
        serving.setContractMarker(0x4B565230);
      }
      case VERSION -> {
        readiness.setProtocolVersion(2);
        poolLoad.setProtocolVersion(0);
        serving.setProtocolVersion(3);
      }
      case RELAY -> {
        readiness.clearRelay();
        poolLoad.clearRelay();
        serving.clearRelay();
      }
    }
    ScriptedRelay relay = new ScriptedRelay();
    relay.readiness = ScriptedRelay.sendAndComplete(List.of(WireCodec.toProto(RELAY, good), readiness.build()));
    relay.poolLoad = ScriptedRelay.sendAndComplete(List.of(poolLoad.build()));
    relay.servingLoad = ScriptedRelay.sendAndComplete(List.of(serving.build()));
    try (InProcessRelay r = new InProcessRelay(relay)) {
      RelayStream<TopologySnapshot> rs = r.client.watchReadiness("me");
      assertThat(next(rs)).isEqualTo(good);
      assertThat(failure(rs).reason()).isEqualTo(RelayErrorReason.CONTRACT_MISMATCH);
      assertThat(failure(r.client.watchPoolLoad("me")).reason()).isEqualTo(RelayErrorReason.CONTRACT_MISMATCH);
      assertThat(failure(r.client.watchServingLoad("me")).reason()).isEqualTo(RelayErrorReason.CONTRACT_MISMATCH);
      assertThat(r.client.stats().rejectedMessages()).isEqualTo(3);
    }
  }

  @Test
  void catalogAndFramesKeepABadEnvelopeForTheEngineViewsToJudge() throws Exception {
    ProducerIdentity p = producer(41);
    ScriptedRelay relay = new ScriptedRelay();
    relay.catalog = ScriptedRelay.sendAndComplete(List.of(
        WireCodec.toProto(new CatalogSnapshot(RELAY, 1, List.of())).toBuilder().setContractMarker(7).build()));
    relay.pool = ScriptedRelay.sendAndComplete(List.of(WireCodec.toProto(
        PoolFrame.of(RELAY, p, 1, 1, 1, PoolFrame.Kind.HEARTBEAT, new byte[0])).toBuilder().setProtocolVersion(9)
        .build()));
    try (InProcessRelay r = new InProcessRelay(relay)) {
      assertThat(next(r.client.watchCatalog("me")).contractMarker()).isEqualTo(7);
      assertThat(next(r.client.subscribePool(p.poolId(), p, "me").get(T, TimeUnit.SECONDS)).protocolVersion())
          .isEqualTo(9);
    }
  }

  // ================================================================ errors

  @ParameterizedTest
  @EnumSource(value = RelayErrorReason.class, names = "UNSPECIFIED", mode = EnumSource.Mode.EXCLUDE)
  void trailersOnlyErrorsOfEveryReasonBecomeThatRelayException(RelayErrorReason reason) throws Exception {
    ScriptedRelay relay = new ScriptedRelay();
    relay.pool = (q, out) -> out.onError(status(reason));
    relay.catalog = (q, out) -> out.onError(status(reason));
    relay.readiness = (q, out) -> out.onError(status(reason));
    relay.poolLoad = (q, out) -> out.onError(status(reason));
    relay.servingLoad = (q, out) -> out.onError(status(reason));
    try (InProcessRelay r = new InProcessRelay(relay)) {
      ProducerIdentity p = producer(41);
      CompletableFuture<RelayStream<PoolFrame>> f = r.client.subscribePool(p.poolId(), p, "me");
      Throwable t = catchThrowable(() -> f.get(T, TimeUnit.SECONDS));
      assertThat(t).isInstanceOf(ExecutionException.class).cause().isInstanceOfSatisfying(RelayException.class,
          e -> assertThat(e.reason()).isEqualTo(reason));
      assertThat(failure(r.client.watchCatalog("me")).reason()).isEqualTo(reason);
      assertThat(failure(r.client.watchReadiness("me")).reason()).isEqualTo(reason);
      assertThat(failure(r.client.watchPoolLoad("me")).reason()).isEqualTo(reason);
      assertThat(failure(r.client.watchServingLoad("me")).reason()).isEqualTo(reason);
    }
  }

  @Test
  void anAbsentUnknownOrUnspecifiedTrailerFallsBackToTheStatusCode() throws Exception {
    Metadata.Key<String> key = Metadata.Key.of("kv-relay-error-reason", Metadata.ASCII_STRING_MARSHALLER);
    record Case(Status.Code code, String trailer, RelayErrorReason expected) {}
    for (Case c : List.of(
        new Case(Status.Code.NOT_FOUND, "RELAY_ERROR_REASON_FROM_THE_FUTURE", RelayErrorReason.POOL_NOT_FOUND),
        new Case(Status.Code.INVALID_ARGUMENT, "RELAY_ERROR_REASON_UNSPECIFIED", RelayErrorReason.INVALID_REQUEST),
        new Case(Status.Code.RESOURCE_EXHAUSTED, "", RelayErrorReason.RESOURCE_LIMIT),
        new Case(Status.Code.UNAVAILABLE, "", RelayErrorReason.PUBLICATION_UNAVAILABLE),
        new Case(Status.Code.INTERNAL, "garbage", RelayErrorReason.INTERNAL))) {
      Metadata trailers = new Metadata();
      if (!c.trailer().isEmpty()) {
        trailers.put(key, c.trailer());
      }
      ScriptedRelay relay = new ScriptedRelay();
      relay.catalog = (q, out) -> out.onError(c.code().toStatus().asRuntimeException(trailers));
      try (InProcessRelay r = new InProcessRelay(relay)) {
        assertThat(failure(r.client.watchCatalog("me")).reason()).as("%s", c).isEqualTo(c.expected());
      }
    }
  }

  @Test
  void anErrorAfterMessagesIsThrownOnlyOnceTheQueuedMessagesWereTakenAndThenOnEveryPoll() throws Exception {
    ProducerIdentity p = producer(41);
    ScriptedRelay relay = new ScriptedRelay();
    relay.pool = ScriptedRelay.sendAndFail(List.of(
        WireCodec.toProto(PoolFrame.of(RELAY, p, 1, 1, 1, PoolFrame.Kind.SNAPSHOT_CHUNK, new byte[] {1})),
        WireCodec.toProto(PoolFrame.of(RELAY, p, 1, 2, 1, PoolFrame.Kind.DELTA, new byte[] {2}))),
        status(RelayErrorReason.SUBSCRIBER_LAGGED));
    try (InProcessRelay r = new InProcessRelay(relay)) {
      RelayStream<PoolFrame> s = r.client.subscribePool(p.poolId(), p, "me").get(T, TimeUnit.SECONDS);
      assertThat(next(s).sequence()).isEqualTo(1);
      assertThat(next(s).sequence()).isEqualTo(2);
      assertThat(failure(s).reason()).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED);
      assertThatThrownBy(s::poll).isInstanceOfSatisfying(RelayException.class,
          e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.SUBSCRIBER_LAGGED));
      assertThat(s.isFinished()).isTrue();
      s.close();
      assertThat(s.poll()).isNull();
    }
  }

  // ================================================================ subscribePool future

  @Test
  void subscribePoolCompletesOnlyWhenTheFirstFrameArrives() throws Exception {
    ProducerIdentity p = producer(41);
    AtomicReference<ServerCallStreamObserver<FilterUpdate>> held = new AtomicReference<>();
    CountDownLatch subscribed = new CountDownLatch(1);
    ScriptedRelay relay = new ScriptedRelay();
    relay.pool = (q, out) -> {
      held.set(out);
      subscribed.countDown();
    };
    try (InProcessRelay r = new InProcessRelay(relay)) {
      CompletableFuture<RelayStream<PoolFrame>> f = r.client.subscribePool(p.poolId(), p, "me");
      assertThat(subscribed.await(T, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(50);
      assertThat(f).isNotDone();
      held.get().onNext(WireCodec.toProto(PoolFrame.of(RELAY, p, 4, 4, 1, PoolFrame.Kind.SNAPSHOT_CHUNK, new byte[1])));
      RelayStream<PoolFrame> s = f.get(T, TimeUnit.SECONDS);
      assertThat(next(s).sequence()).isEqualTo(4);
      s.close();
    }
  }

  @Test
  void subscribePoolForAnotherPoolThanTheExpectedProducersIsRefusedWithoutACall() throws Exception {
    ScriptedRelay relay = new ScriptedRelay();
    try (InProcessRelay r = new InProcessRelay(relay)) {
      CompletableFuture<RelayStream<PoolFrame>> f =
          r.client.subscribePool(producer(42).poolId(), producer(41), "me");
      assertThat(catchThrowable(() -> f.get(T, TimeUnit.SECONDS))).cause().isInstanceOfSatisfying(
          RelayException.class, e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.INVALID_REQUEST));
      assertThat(relay.requests).isEmpty();
    }
  }

  // ================================================================ flow control and cancellation

  @Test
  void aServerSending1000MessagesIsFlowControlledToTheBoundOfUnconsumedMessages() throws Exception {
    int total = 1000;
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean sawNotReady = new AtomicBoolean();
    ScriptedRelay relay = new ScriptedRelay();
    relay.poolLoad = (q, out) -> {
      Runnable pump = () -> {
        synchronized (sent) {
          while (sent.get() < total) {
            if (!out.isReady()) {
              sawNotReady.set(true);
              return;
            }
            int i = sent.getAndIncrement();
            out.onNext(WireCodec.toProto(RELAY, new KvPoolLoadUpdate(i, 0, 1000, List.of())));
          }
          out.onCompleted();
          sent.incrementAndGet(); // completion marker, once
        }
      };
      out.setOnReadyHandler(pump);
      pump.run();
    };
    try (InProcessRelay r = new InProcessRelay(relay)) {
      GrpcRelayStream<?, KvPoolLoadUpdate> s = (GrpcRelayStream<?, KvPoolLoadUpdate>) r.client.watchPoolLoad("me");
      Thread.sleep(150); // the consumer does not poll: the server must stop at isReady
      assertThat(sent.get()).isLessThanOrEqualTo(RelayGrpcClient.DEFAULT_INBOUND_QUEUE_BOUND);
      assertThat(sawNotReady).isTrue();
      for (int i = 0; i < total; i++) {
        KvPoolLoadUpdate w = next(s);
        assertThat(w.windowSequence()).isEqualTo(i);
        assertThat(Math.min(sent.get(), total)).isLessThanOrEqualTo(i + 1 + RelayGrpcClient.DEFAULT_INBOUND_QUEUE_BOUND);
      }
      assertThat(s.poll(T, TimeUnit.SECONDS)).isNull();
      assertThat(s.isFinished()).isTrue();
      assertThat(s.queueHighWater()).isBetween(1, RelayGrpcClient.DEFAULT_INBOUND_QUEUE_BOUND);
    }
  }

  @Test
  void closingAStreamCancelsTheServerCall() throws Exception {
    CountDownLatch cancelled = new CountDownLatch(2);
    ScriptedRelay relay = new ScriptedRelay();
    relay.catalog = (q, out) -> {
      out.setOnCancelHandler(cancelled::countDown);
      out.onNext(WireCodec.toProto(new CatalogSnapshot(RELAY, 0, List.of())));
    };
    relay.pool = (q, out) -> out.setOnCancelHandler(cancelled::countDown); // never answers
    try (InProcessRelay r = new InProcessRelay(relay)) {
      RelayStream<CatalogUpdate> s = r.client.watchCatalog("me");
      assertThat(next(s).revision()).isZero();
      s.close();
      assertThat(s.isFinished()).isTrue();
      assertThat(s.poll()).isNull();
      ProducerIdentity p = producer(41);
      CompletableFuture<RelayStream<PoolFrame>> f = r.client.subscribePool(p.poolId(), p, "me");
      Thread.sleep(20);
      f.cancel(false);
      assertThat(cancelled.await(T, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void onAvailableRunsAtOnceWhenSomethingIsQueuedAndOnEveryArrival() throws Exception {
    ScriptedRelay relay = new ScriptedRelay();
    relay.catalog = ScriptedRelay.sendAndComplete(List.of(WireCodec.toProto(new CatalogSnapshot(RELAY, 0, List.of()))));
    try (InProcessRelay r = new InProcessRelay(relay)) {
      RelayStream<CatalogUpdate> s = r.client.watchCatalog("me");
      CountDownLatch available = new CountDownLatch(1);
      s.onAvailable(available::countDown);
      assertThat(available.await(T, TimeUnit.SECONDS)).isTrue();
      assertThat(next(s).revision()).isZero();
    }
  }

  // ================================================================ transport: inbound limit over loopback

  @Test
  void aMessageLargerThanTheInboundLimitFailsTheStreamWithATypedErrorWhileA5MiBChunkPasses() throws Exception {
    ProducerIdentity p = producer(41);
    ScriptedRelay relay = new ScriptedRelay();
    relay.pool = ScriptedRelay.sendAndComplete(List.of(
        WireCodec.toProto(PoolFrame.of(RELAY, p, 1, 1, 1, PoolFrame.Kind.SNAPSHOT_CHUNK, new byte[5 << 20])),
        WireCodec.toProto(PoolFrame.of(RELAY, p, 1, 2, 1, PoolFrame.Kind.DELTA, new byte[9 << 20]))));
    Server server = ServerBuilder.forPort(0).addService(relay).build().start();
    try (RelayGrpcClient client = RelayGrpcClient.builder().target("127.0.0.1:" + server.getPort()).build()) {
      RelayStream<PoolFrame> s = client.subscribePool(p.poolId(), p, "me").get(T, TimeUnit.SECONDS);
      assertThat(next(s).payload()).hasSize(5 << 20);
      RelayException e = failure(s);
      assertThat(e.reason()).isEqualTo(RelayErrorReason.RESOURCE_LIMIT);
      assertThat(e.getMessage()).contains("RESOURCE_EXHAUSTED");
    } finally {
      server.shutdownNow();
      server.awaitTermination(T, TimeUnit.SECONDS);
    }
  }

  @Test
  void aSmallerConfiguredLimitAppliesOnACallersChannelToo() throws Exception {
    ProducerIdentity p = producer(41);
    ScriptedRelay relay = new ScriptedRelay();
    relay.pool = ScriptedRelay.sendAndComplete(List.of(
        WireCodec.toProto(PoolFrame.of(RELAY, p, 1, 1, 1, PoolFrame.Kind.SNAPSHOT_CHUNK, new byte[4_300_000]))));
    Server server = ServerBuilder.forPort(0).addService(relay).build().start();
    io.grpc.ManagedChannel channel = io.grpc.ManagedChannelBuilder.forTarget("127.0.0.1:" + server.getPort())
        .usePlaintext().maxInboundMessageSize(64 << 20).build();
    try (RelayGrpcClient client = RelayGrpcClient.builder().channel(channel)
        .maxInboundMessageSize(RelayGrpcClient.MIN_MAX_INBOUND_MESSAGE_BYTES).build()) {
      CompletableFuture<RelayStream<PoolFrame>> f = client.subscribePool(p.poolId(), p, "me");
      assertThat(catchThrowable(() -> f.get(T, TimeUnit.SECONDS))).cause().isInstanceOfSatisfying(
          RelayException.class, e -> assertThat(e.reason()).isEqualTo(RelayErrorReason.RESOURCE_LIMIT));
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      server.awaitTermination(T, TimeUnit.SECONDS);
    }
  }

  // ================================================================ builder

  @Test
  void builderIsSetOnceAndChecksItsValues() {
    assertThatThrownBy(() -> RelayGrpcClient.builder().maxInboundMessageSize(4_259_903))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(RelayGrpcClient.MIN_MAX_INBOUND_MESSAGE_BYTES).isEqualTo(4_259_904);
    assertThat(RelayGrpcClient.DEFAULT_MAX_INBOUND_MESSAGE_BYTES).isEqualTo(8 * 1024 * 1024);
    assertThatThrownBy(() -> RelayGrpcClient.builder().maxInboundMessageSize(4_259_904).maxInboundMessageSize(5_000_000))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> RelayGrpcClient.builder().target("127.0.0.1:1").target("127.0.0.1:2"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> RelayGrpcClient.builder().inboundQueueBound(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RelayGrpcClient.builder().infoDeadline(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RelayGrpcClient.builder().build()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aClosedClientRefusesNewCallsWithATypedError() throws Exception {
    ScriptedRelay relay = new ScriptedRelay();
    try (InProcessRelay r = new InProcessRelay(relay)) {
      r.client.close();
      assertThatThrownBy(() -> r.client.watchCatalog("me")).isInstanceOf(RelayException.class);
      assertThat(r.client.subscribePool(producer(41).poolId(), producer(41), "me")).isCompletedExceptionally();
    }
  }
}
