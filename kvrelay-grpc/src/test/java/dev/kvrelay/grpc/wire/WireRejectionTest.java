package dev.kvrelay.grpc.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.WireValidationException.Kind;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import dev.kvrelay.grpc.proto.CkfFormat;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.ModelRegistration;
import dev.kvrelay.grpc.proto.ModelTarget;
import dev.kvrelay.grpc.proto.ServingLoadUpdate;
import dev.kvrelay.grpc.proto.ServingReadinessUpdate;
import dev.kvrelay.grpc.proto.TopologyEntry;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Unknown enum numbers and unset oneofs survive the mapping and are then rejected by the existing validators
 * with the right kind (wan-grpc.md §1.8; §9 C28 and C31; vectors.md §10.2).
 */
class WireRejectionTest {

  private static final RelayIdentity RELAY = new RelayIdentity(7, 9);

  private static ProducerIdentity producer() {
    return sample(WireGenerators.PRODUCERS, 42);
  }

  private static KvPoolDescriptor descriptor() {
    ProducerIdentity p = producer();
    return sample(r -> WireGenerators.descriptor(r, p), 7);
  }

  /** A valid descriptor's proto, re-parsed from bytes after {@code edit}. */
  private static DescriptorWire received(java.util.function.Consumer<dev.kvrelay.grpc.proto.KvPoolDescriptor.Builder> edit)
      throws Exception {
    dev.kvrelay.grpc.proto.KvPoolDescriptor.Builder b = WireCodec.toProto(descriptor()).toBuilder();
    edit.accept(b);
    return WireCodec.fromProto(dev.kvrelay.grpc.proto.KvPoolDescriptor.parseFrom(b.build().toByteArray()));
  }

  private static Kind rejection(DescriptorWire wire) {
    try {
      CatalogValidator.validate(wire);
    } catch (WireValidationException e) {
      return e.kind();
    }
    throw new AssertionError("accepted " + wire);
  }

  // ---------------------------------------------------------------- C28

  @Test
  void c28HashFormat99OrMinus1IsUnsupportedAnd0Malformed() throws Exception {
    for (int value : new int[] {99, -1}) {
      DescriptorWire wire = received(b -> b.setQuerySemantics(b.getQuerySemantics().toBuilder().setHashFormatValue(value)));
      assertThat(wire.querySemantics().hashFormat()).isEqualTo(value);
      assertThat(rejection(wire)).isEqualTo(Kind.UNSUPPORTED);
    }
    assertThat(rejection(received(b -> b.setQuerySemantics(b.getQuerySemantics().toBuilder().setHashFormatValue(0)))))
        .isEqualTo(Kind.MALFORMED);
  }

  @Test
  void c28PoolRole99OrMinus1IsUnsupported0OrDuplicateMalformed() throws Exception {
    for (int value : new int[] {99, -1}) {
      DescriptorWire wire = received(b -> b.clearPoolRoles().addPoolRolesValue(1).addPoolRolesValue(value));
      assertThat(wire.poolRoles()).containsExactly(1, value);
      assertThat(rejection(wire)).isEqualTo(Kind.UNSUPPORTED);
    }
    assertThat(rejection(received(b -> b.clearPoolRoles().addPoolRolesValue(0)))).isEqualTo(Kind.MALFORMED);
    assertThat(rejection(received(b -> b.clearPoolRoles().addPoolRolesValue(2).addPoolRolesValue(2))))
        .isEqualTo(Kind.MALFORMED);
    assertThat(rejection(received(b -> b.clearPoolRoles()))).isEqualTo(Kind.MALFORMED);
  }

  @Test
  void c28ModelTargetWithUnknownTag3IsUnsupported() throws Exception {
    // ModelTarget { <field 3, length-delimited, empty> }: a future oneof alternative this build cannot read
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(raw);
    out.writeBytes(3, ByteString.EMPTY);
    out.flush();
    ModelTarget future = ModelTarget.parseFrom(raw.toByteArray());
    assertThat(future.getTargetCase()).isEqualTo(ModelTarget.TargetCase.TARGET_NOT_SET);
    DescriptorWire wire = received(b -> b.clearRegistrations().addRegistrations(
        ModelRegistration.newBuilder().setCanonicalModelId("m").setTarget(future)));
    assertThat(wire.registrations().get(0).targetCase()).isEqualTo(dev.kvrelay.api.ModelTarget.WireCase.NOT_SET);
    assertThat(rejection(wire)).isEqualTo(Kind.UNSUPPORTED);
    // a missing target message is malformed
    assertThat(rejection(received(b -> b.clearRegistrations().addRegistrations(
        ModelRegistration.newBuilder().setCanonicalModelId("m"))))).isEqualTo(Kind.MALFORMED);
  }

  private static TopologyEntry.Builder validEntry() {
    return WireCodec.toProto(WireRejectionTest.<dev.kvrelay.engine.wan.TopologyEntry>sample(r -> WireGenerators.topologyEntry(r, "ns", "model"), 3)).toBuilder();
  }

  private static Kind entryRejection(TopologyEntry.Builder entry) throws Exception {
    ServingReadinessUpdate update = ServingReadinessUpdate.parseFrom(ServingReadinessUpdate.newBuilder()
        .setProtocolVersion(1).setRelay(WireCodec.toProto(RELAY)).setRevision(1).addEntries(entry)
        .setContractMarker(WireCodec.CONTRACT_MARKER_BITS).build().toByteArray());
    TopologyEntryValidator.EntryWire wire = WireCodec.fromProto(update).entries().get(0);
    try {
      TopologyEntryValidator.validate(wire);
    } catch (WireValidationException e) {
      return e.kind();
    }
    throw new AssertionError("accepted " + wire);
  }

  @Test
  void c28TopologyState99IsUnsupportedAndUnknownWithoutMembersMalformed() throws Exception {
    assertThat(entryRejection(validEntry().setStateValue(99))).isEqualTo(Kind.UNSUPPORTED);
    assertThat(entryRejection(validEntry().setStateValue(0).clearMembers())).isEqualTo(Kind.MALFORMED);
    assertThat(entryRejection(validEntry().addPresentRolesValue(99))).isEqualTo(Kind.UNSUPPORTED);
  }

  // ---------------------------------------------------------------- C31

  private static Kind producerRejection(java.util.function.Consumer<dev.kvrelay.grpc.proto.ProducerIdentity.Builder> edit)
      throws Exception {
    dev.kvrelay.grpc.proto.ProducerIdentity.Builder b = WireCodec.toProto(producer()).toBuilder();
    edit.accept(b);
    dev.kvrelay.grpc.proto.ProducerIdentity parsed =
        dev.kvrelay.grpc.proto.ProducerIdentity.parseFrom(b.build().toByteArray());
    try {
      ProducerIdentity.fromWire(WireCodec.fromProto(parsed));
    } catch (WireValidationException e) {
      return e.kind();
    }
    throw new AssertionError("accepted " + parsed);
  }

  private static java.util.function.Consumer<dev.kvrelay.grpc.proto.ProducerIdentity.Builder> format(
      java.util.function.UnaryOperator<CkfFormat.Builder> edit) {
    return b -> b.setCkfFormat(edit.apply(b.getCkfFormat().toBuilder()));
  }

  @Test
  void c31FormatVersionFingerprintBitsOrSlotsPlusOneAreUnsupported() throws Exception {
    assertThat(producerRejection(format(f -> f.setFormatVersion(2)))).isEqualTo(Kind.UNSUPPORTED);
    assertThat(producerRejection(format(f -> f.setFingerprintBits(17)))).isEqualTo(Kind.UNSUPPORTED);
    assertThat(producerRejection(format(f -> f.setSlotsPerBucket(5)))).isEqualTo(Kind.UNSUPPORTED);
  }

  @Test
  void c31BucketCount3IsMalformedAndTooLargeUnsupported() throws Exception {
    assertThat(producerRejection(format(f -> f.setBucketCount(3)))).isEqualTo(Kind.MALFORMED);
    assertThat(producerRejection(format(f -> f.setBucketCount(1L << 25)))).isEqualTo(Kind.UNSUPPORTED);
    // u64 above Long.MAX_VALUE: too large, never a negative int
    assertThat(producerRejection(format(f -> f.setBucketCount(-2L)))).isEqualTo(Kind.UNSUPPORTED);
  }

  @Test
  void c31FifteenByteDigestAndUnspecifiedSourceAreInvalid() throws Exception {
    assertThat(producerRejection(b -> b.getPoolIdBuilder().getIndexerDomainBuilder().getCacheSemanticsBuilder()
        .setDigest(ByteString.copyFrom(new byte[15])))).isEqualTo(Kind.MALFORMED);
    assertThat(producerRejection(b -> b.getPoolIdBuilder().getIndexerDomainBuilder().getRoutingScopeBuilder()
        .setSourceValue(0))).isEqualTo(Kind.MALFORMED);
    assertThat(producerRejection(b -> b.getPoolIdBuilder().getIndexerDomainBuilder().getRoutingScopeBuilder()
        .setSourceValue(7))).isEqualTo(Kind.UNSUPPORTED);
    assertThat(producerRejection(b -> b.getPoolIdBuilder().setIdentityVersion(0))).isEqualTo(Kind.MALFORMED);
    assertThat(producerRejection(b -> b.getPoolIdBuilder().setIdentityVersion(2))).isEqualTo(Kind.UNSUPPORTED);
    assertThat(producerRejection(b -> b.setLayoutGeneration(0))).isEqualTo(Kind.MALFORMED);
    assertThat(producerRejection(b -> b.clearCkfFormat())).isEqualTo(Kind.MALFORMED);
  }

  // ---------------------------------------------------------------- frames, envelope, serving load

  @Test
  void unknownFilterUpdateKindSurvivesAsItsRawNumber() throws Exception {
    FilterUpdate update = WireCodec.toProto(PoolFrame.of(RELAY, producer(), 4, 4, 1, PoolFrame.Kind.HEARTBEAT, new byte[0]))
        .toBuilder().setKindValue(42).build();
    PoolFrame frame = WireCodec.fromProto(FilterUpdate.parseFrom(update.toByteArray()));
    assertThat(frame.kindNumber()).isEqualTo(42);
    assertThat(frame.kind()).isEqualTo(PoolFrame.Kind.UNKNOWN);
  }

  @Test
  void frameWithMalformedProducerIsRejectedButABadMarkerWinsFirst() throws Exception {
    FilterUpdate broken = WireCodec.toProto(PoolFrame.of(RELAY, producer(), 4, 4, 1, PoolFrame.Kind.HEARTBEAT, new byte[0]))
        .toBuilder().setProducer(WireCodec.toProto(producer()).toBuilder().setLayoutGeneration(0)).build();
    assertThatThrownBy(() -> WireCodec.fromProto(broken))
        .isInstanceOfSatisfying(WireValidationException.class, e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED));
    PoolFrame badMarker = WireCodec.fromProto(broken.toBuilder().setContractMarker(0x31525649).build());
    assertThat(badMarker.contractMarker()).isEqualTo(0x31525649L);
    assertThat(badMarker.producer()).isNull();
  }

  @Test
  void envelopeChecksMarkerBeforeProtocolVersionBeforeRelay() {
    assertThat(field(new WireEnvelope(2, 0, null))).isEqualTo("contract_marker");
    assertThat(field(new WireEnvelope(2, 0x4B565231L, null))).isEqualTo("protocol_version");
    assertThat(field(new WireEnvelope(1, 0x4B565231L, null))).isEqualTo("relay");
    assertThat(new WireEnvelope(1, 0x4B565231L, RELAY).valid()).isTrue();
  }

  private static String field(WireEnvelope envelope) {
    try {
      envelope.check();
    } catch (WireValidationException e) {
      assertThat(e.kind()).isEqualTo(Kind.MALFORMED);
      return e.field();
    }
    throw new AssertionError("accepted");
  }

  private static ServingLoadUpdate.Builder servingWindow() {
    ProducerIdentity p = producer();
    return WireCodec.toProto(RELAY, new dev.kvrelay.engine.wire.ServingLoadUpdate(1, 2, 3,
        List.of(WireRejectionTest.<dev.kvrelay.engine.wire.PoolServingLoad>sample(r -> WireGenerators.poolServingLoad(r, p), 11)),
        List.of(WireRejectionTest.<dev.kvrelay.engine.wire.ModelServingLoad>sample(r -> WireGenerators.modelServingLoad(r, "ns", "model"), 12)))).toBuilder();
  }

  @Test
  void servingLoadUnknownStatusQuarantinesOnlyItsEntryAndUnspecifiedIsMalformed() throws Exception {
    ServingLoadUpdate.Builder b = servingWindow();
    b.getPoolsBuilder(0).getLoadBuilder().setStatusValue(9);
    b.getModelsBuilder(0).getLoadBuilder().setStatusValue(0);
    ServingLoadWindow window = WireCodec.fromProto(ServingLoadUpdate.parseFrom(b.build().toByteArray()));
    assertThat(window.update().pools()).isEmpty();
    assertThat(window.update().models()).isEmpty();
    assertThat(window.excludedPools()).extracting(ExcludedEntry::kind).containsExactly(Kind.UNSUPPORTED);
    assertThat(window.excludedModels()).extracting(ExcludedEntry::kind).containsExactly(Kind.MALFORMED);
    assertThatThrownBy(() -> DataStatus.fromWire(0)).isInstanceOf(WireValidationException.class);
    assertThat(DataStatus.fromWire(DataStatus.DEGRADED.wireValue())).isEqualTo(DataStatus.DEGRADED);
    assertThat(DataStatus.COMPLETE.wireValue()).isEqualTo(1);
    assertThat(DataStatus.UNAVAILABLE.wireValue()).isEqualTo(3);
  }

  @Test
  void servingLoadWindowWithMissingProducerOrDuplicateKeyIsUnusable() throws Exception {
    ServingLoadUpdate.Builder missing = servingWindow();
    missing.getPoolsBuilder(0).clearProducer();
    assertThatThrownBy(() -> WireCodec.fromProto(missing.build())).isInstanceOf(WireValidationException.class);
    ServingLoadUpdate.Builder duplicate = servingWindow();
    duplicate.addPools(duplicate.getPools(0));
    assertThatThrownBy(() -> WireCodec.fromProto(duplicate.build())).isInstanceOf(WireValidationException.class);
    ServingLoadUpdate.Builder badMarker = servingWindow().setContractMarker(1);
    assertThatThrownBy(() -> WireCodec.fromProto(badMarker.build()))
        .isInstanceOfSatisfying(WireValidationException.class,
            e -> assertThat(e.field()).isEqualTo("contract_marker"));
  }

  /** One value of a property generator, reproducible (fixed seed). */
  static <T> T sample(org.quicktheories.core.Gen<T> gen, long seed) {
    java.util.concurrent.atomic.AtomicReference<T> value = new java.util.concurrent.atomic.AtomicReference<>();
    org.quicktheories.QuickTheory.qt().withFixedSeed(seed).withExamples(1).forAll(gen).checkAssert(value::set);
    return value.get();
  }
}
