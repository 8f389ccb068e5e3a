package dev.kvrelay.grpc.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.consumer.ReadinessSnapshot;
import dev.kvrelay.engine.consumer.ReadinessViewProbe;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.CatalogValidation;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.KvPoolLoadUpdate;
import dev.kvrelay.grpc.proto.ServingLoadUpdate;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Engine value → proto → bytes → proto → engine consumer input → existing validator: the original value comes
 * back for every mapped type, with random values over the full unsigned ranges.
 */
class WireCodecRoundTripProperties {

  private static final int EXAMPLES = 300;

  @Test
  void relayIdentityRoundTrips() {
    qt().withExamples(EXAMPLES).forAll(WireGenerators.RELAYS).checkAssert(relay -> {
      byte[] bytes = WireCodec.toProto(relay).toByteArray();
      assertThat(WireCodec.fromProto(parse(() -> dev.kvrelay.grpc.proto.RelayIdentity.parseFrom(bytes))))
          .isEqualTo(relay);
    });
  }

  @Test
  void producerIdentityRoundTripsThroughFromWireValidation() {
    qt().withExamples(EXAMPLES).forAll(WireGenerators.PRODUCERS).checkAssert(producer -> {
      byte[] bytes = WireCodec.subscribePoolRequest("consumer-a", producer).toByteArray();
      SubscribeKvPoolRequest request = parse(() -> SubscribeKvPoolRequest.parseFrom(bytes));
      assertThat(WireCodec.markerMatches(request.getContractMarker())).isTrue();
      assertThat(request.getSubscriberId()).isEqualTo("consumer-a");
      assertThat(validate(() -> ProducerIdentity.fromWire(WireCodec.expectedProducer(request))))
          .isEqualTo(producer);
    });
  }

  @Test
  void catalogSnapshotRoundTripsThroughCatalogValidator() {
    qt().withExamples(EXAMPLES).forAll(WireGenerators.CATALOGS).checkAssert(snapshot -> {
      byte[] bytes = WireCodec.toProto(snapshot).toByteArray();
      CatalogUpdate update = validate(() -> WireCodec.fromProto(parse(() -> KvPoolCatalogUpdate.parseFrom(bytes))));
      assertThat(update.protocolVersion()).isEqualTo(1);
      assertThat(update.contractMarker()).isEqualTo(0x4B565231L);
      assertThat(update.relay()).isEqualTo(snapshot.identity());
      assertThat(update.revision()).isEqualTo(snapshot.revision());
      CatalogValidation validation = CatalogValidator.validateAll(update.pools());
      assertThat(validation.excluded()).isEmpty();
      assertThat(validation.usable()).isEqualTo(snapshot.pools());
      // and the in-process CatalogUpdate shape maps to the same bytes
      CatalogUpdate inProcess = CatalogUpdate.ofDescriptors(snapshot.identity(), snapshot.revision(), snapshot.pools());
      assertThat(WireCodec.toProto(inProcess).toByteArray()).isEqualTo(bytes);
    });
  }

  @Test
  void poolFrameRoundTripsWithRawKindNumbers() {
    qt().withExamples(EXAMPLES).forAll(WireGenerators.FRAMES).checkAssert(frame -> {
      byte[] bytes = WireCodec.toProto(frame).toByteArray();
      PoolFrame back = validate(() -> WireCodec.fromProto(parse(() -> FilterUpdate.parseFrom(bytes))));
      assertThat(back.protocolVersion()).isEqualTo(frame.protocolVersion());
      assertThat(back.contractMarker()).isEqualTo(frame.contractMarker());
      assertThat(back.relay()).isEqualTo(frame.relay());
      assertThat(back.producer()).isEqualTo(frame.producer());
      assertThat(back.baseSequence()).isEqualTo(frame.baseSequence());
      assertThat(back.sequence()).isEqualTo(frame.sequence());
      assertThat(back.sendTsUs()).isEqualTo(frame.sendTsUs());
      assertThat(back.kindNumber()).isEqualTo(frame.kindNumber());
      assertThat(back.kind()).isEqualTo(frame.kind());
      assertThat(back.payload()).isEqualTo(frame.payload());
    });
  }

  @Test
  void readinessRoundTripsThroughTopologyEntryValidatorAndReadinessView() {
    qt().withExamples(EXAMPLES).forAll(WireGenerators.RELAYS, WireGenerators.TOPOLOGIES).checkAssert((relay, topo) -> {
      byte[] bytes = WireCodec.toProto(relay, topo).toByteArray();
      ReadinessWire wire = WireCodec.fromProto(parse(() -> ServingReadinessUpdate.parseFrom(bytes)));
      assertThat(validate(wire.envelope()::check)).isEqualTo(relay);
      assertThat(wire.revision()).isEqualTo(topo.revision());
      List<TopologyEntry> entries = new ArrayList<>();
      for (TopologyEntryValidator.EntryWire e : wire.entries()) {
        entries.add(validate(() -> TopologyEntryValidator.validate(e)));
      }
      assertThat(entries).isEqualTo(topo.entries());
      ReadinessViewProbe view = new ReadinessViewProbe();
      validate(() -> view.applyWire(wire.revision(), wire.entries(), 5));
      ReadinessSnapshot viaWire = view.snapshot();
      ReadinessViewProbe direct = new ReadinessViewProbe();
      validate(() -> direct.apply(topo, 5));
      assertThat(viaWire).isEqualTo(direct.snapshot());
    });
  }

  @Test
  void poolLoadWindowRoundTrips() {
    qt().withExamples(EXAMPLES).forAll(WireGenerators.RELAYS, WireGenerators.POOL_LOADS).checkAssert((relay, w) -> {
      byte[] bytes = WireCodec.toProto(relay, w).toByteArray();
      PoolLoadWindow back = WireCodec.fromProto(parse(() -> KvPoolLoadUpdate.parseFrom(bytes)));
      assertThat(validate(back.envelope()::check)).isEqualTo(relay);
      assertThat(back.excluded()).isEmpty();
      assertThat(back.update()).isEqualTo(w);
    });
  }

  @Test
  void servingLoadWindowRoundTrips() {
    qt().withExamples(EXAMPLES).forAll(WireGenerators.RELAYS, WireGenerators.SERVING_LOADS).checkAssert((relay, w) -> {
      byte[] bytes = WireCodec.toProto(relay, w).toByteArray();
      ServingLoadWindow back = validate(() -> WireCodec.fromProto(parse(() -> ServingLoadUpdate.parseFrom(bytes))));
      assertThat(back.relay()).isEqualTo(relay);
      assertThat(back.excludedPools()).isEmpty();
      assertThat(back.excludedModels()).isEmpty();
      assertThat(back.update()).isEqualTo(w);
    });
  }

  @Test
  void unsignedValuesAboveLongMaxSurviveOnTheWire() {
    RelayIdentity relay = new RelayIdentity(-1L, Long.MIN_VALUE);
    dev.kvrelay.grpc.proto.RelayIdentity proto = WireCodec.toProto(relay);
    assertThat(Long.toUnsignedString(proto.getDrtInstanceId())).isEqualTo("18446744073709551615");
    assertThat(WireCodec.fromProto(proto)).isEqualTo(relay);
  }

  // ------------------------------------------------------------------ helpers

  interface Parse<T> {
    T get() throws com.google.protobuf.InvalidProtocolBufferException;
  }

  interface Check<T> {
    T get() throws Exception;
  }

  static <T> T parse(Parse<T> p) {
    try {
      return p.get();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  static <T> T validate(Check<T> c) {
    try {
      return c.get();
    } catch (Exception e) {
      throw new AssertionError("unexpected rejection: " + e, e);
    }
  }
}
