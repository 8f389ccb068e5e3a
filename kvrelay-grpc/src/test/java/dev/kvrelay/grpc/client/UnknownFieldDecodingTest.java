package dev.kvrelay.grpc.client;

import static dev.kvrelay.grpc.client.RelayGrpcClientTest.RELAY;
import static dev.kvrelay.grpc.client.RelayGrpcClientTest.T;
import static dev.kvrelay.grpc.client.RelayGrpcClientTest.descriptor;
import static dev.kvrelay.grpc.client.RelayGrpcClientTest.next;
import static dev.kvrelay.grpc.client.RelayGrpcClientTest.producer;
import static dev.kvrelay.grpc.client.RelayGrpcClientTest.readyEntry;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.KvPoolLoadEntry;
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
import dev.kvrelay.grpc.wire.WireCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * C26 on the consumer side (wan-grpc.md §1.2, §7): responses and catalog descriptors carrying unknown field 100 —
 * in the top-level message and in every nested message (KvPoolDescriptor, ProducerIdentity and its PoolId,
 * IndexerDomainId, DigestIdentity and CkfFormat, readiness entries and members, load entries) — decode through
 * {@link RelayGrpcClient} exactly like the same message without it, and the ProducerKey compares equal. The scripted
 * server sends the plain message first, then the decorated one, over one stream.
 */
class UnknownFieldDecodingTest {
  /** Field 100 twice: a varint and a length-delimited value (a future scalar and a future message or string). */
  static final UnknownFieldSet.Field FIELD_100 = UnknownFieldSet.Field.newBuilder().addVarint(0xABCDL)
      .addLengthDelimited(ByteString.copyFromUtf8("from a newer contract")).build();

  /** {@code m} with field 100 added to it and to every message nested in it, counting the decorated messages. */
  @SuppressWarnings("unchecked")
  static <M extends Message> M withField100Everywhere(M m, AtomicInteger decorated) {
    Message.Builder b = m.toBuilder();
    for (FieldDescriptor fd : m.getDescriptorForType().getFields()) {
      if (fd.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (fd.isRepeated()) {
        for (int i = 0; i < m.getRepeatedFieldCount(fd); i++) {
          b.setRepeatedField(fd, i, withField100Everywhere((Message) m.getRepeatedField(fd, i), decorated));
        }
      } else if (m.hasField(fd)) {
        b.setField(fd, withField100Everywhere((Message) m.getField(fd), decorated));
      }
    }
    b.setUnknownFields(UnknownFieldSet.newBuilder(m.getUnknownFields()).mergeField(100, FIELD_100).build());
    decorated.incrementAndGet();
    return (M) b.build();
  }

  /** The decorated copy, checked to really carry field 100 on the wire in at least {@code minMessages} places. */
  static <M extends Message> M decorate(M m, int minMessages) {
    AtomicInteger n = new AtomicInteger();
    M d = withField100Everywhere(m, n);
    assertThat(n.get()).as("decorated messages").isGreaterThanOrEqualTo(minMessages);
    assertThat(d.getUnknownFields().hasField(100)).isTrue();
    assertThat(d.getSerializedSize()).as("field 100 is on the wire")
        .isGreaterThanOrEqualTo(m.getSerializedSize() + minMessages * 25);
    assertThat(d).isNotEqualTo(m);
    return d;
  }

  @Test
  void c26_getRelayInfoResponseWithField100DecodesToTheSameRelay() throws Exception {
    RelayInfo plain = WireCodec.relayInfo(RELAY);
    RelayInfo decorated = decorate(plain, 2);
    ScriptedRelay relay = new ScriptedRelay();
    relay.info = (q, out) -> {
      out.onNext(decorated);
      out.onCompleted();
    };
    try (InProcessRelay r = new InProcessRelay(relay)) {
      assertThat(r.client.getRelayInfo()).isEqualTo(RELAY);
    }
  }

  @Test
  void c26_catalogUpdateAndDescriptorsWithField100DecodeIdenticallyAndKeepTheProducerKey() throws Exception {
    List<KvPoolDescriptor> pools = List.of(descriptor(41), descriptor(42));
    var plain = WireCodec.toProto(new CatalogSnapshot(RELAY, 3, pools));
    // per descriptor: itself, producer, pool id, domain, 2 digests, format, endpoint, registration, target, base,
    // semantics = 12; plus the update, its relay and its snapshot
    var decorated = decorate(plain, 2 * 12 + 3);
    assertThat(decorated.getSnapshot().getPools(0).getProducer().getUnknownFields().hasField(100)).isTrue();
    ScriptedRelay relay = new ScriptedRelay();
    relay.catalog = ScriptedRelay.sendAndComplete(List.of(plain, decorated));
    try (InProcessRelay r = new InProcessRelay(relay); RelayStream<CatalogUpdate> s = r.client.watchCatalog("me/catalog")) {
      CatalogUpdate a = next(s);
      CatalogUpdate b = next(s);
      assertThat(b).usingRecursiveComparison().isEqualTo(a);
      List<KvPoolDescriptor> fromPlain = validate(a);
      List<KvPoolDescriptor> fromDecorated = validate(b);
      assertThat(fromDecorated).isEqualTo(fromPlain).isEqualTo(pools);
      for (int i = 0; i < pools.size(); i++) {
        ProducerIdentity key = fromDecorated.get(i).producer();
        assertThat(key).isEqualTo(pools.get(i).producer()).hasSameHashCodeAs(pools.get(i).producer());
      }
      assertThat(r.client.stats().rejectedMessages()).isZero();
    }
  }

  private static List<KvPoolDescriptor> validate(CatalogUpdate u) throws Exception {
    List<KvPoolDescriptor> out = new ArrayList<>();
    for (DescriptorWire w : u.pools()) {
      out.add(CatalogValidator.validate(w));
    }
    return out;
  }

  @Test
  void c26_filterUpdateWhoseProducerIdentityCarriesField100IsTheSameFrameAndTheSameProducerKey() throws Exception {
    ProducerIdentity p = producer(41);
    FilterUpdate plain = WireCodec.toProto(PoolFrame.of(RELAY, p, 9, 10, 12, PoolFrame.Kind.DELTA, new byte[] {4, 5}));
    // update, relay, producer, pool id, domain, 2 digests, format
    FilterUpdate decorated = decorate(plain, 8);
    assertThat(decorated.getProducer().getPoolId().getIndexerDomain().getCacheSemantics().getUnknownFields()
        .hasField(100)).isTrue();
    ScriptedRelay relay = new ScriptedRelay();
    relay.pool = ScriptedRelay.sendAndComplete(List.of(plain, decorated));
    try (InProcessRelay r = new InProcessRelay(relay)) {
      RelayStream<PoolFrame> s = r.client.subscribePool(p.poolId(), p, "me/ckf").get(T, TimeUnit.SECONDS);
      PoolFrame a = next(s);
      PoolFrame b = next(s);
      assertThat(b).usingRecursiveComparison().ignoringFields("payload").isEqualTo(a);
      assertThat(b.payload()).isEqualTo(a.payload());
      assertThat(b.producer()).isEqualTo(p).hasSameHashCodeAs(p);
      assertThat(s.poll(T, TimeUnit.SECONDS)).isNull();
      assertThat(s.isFinished()).isTrue();
    }
  }

  @Test
  void c26_readinessEntriesWithField100DecodeIdentically() throws Exception {
    TopologySnapshot snapshot = new TopologySnapshot(2, List.of(readyEntry("llama"), readyEntry("mistral")));
    var plain = WireCodec.toProto(RELAY, snapshot);
    // update, relay; per entry: itself, member, endpoint, pool id, domain, 2 digests = 7
    var decorated = decorate(plain, 2 + 2 * 7);
    assertThat(decorated.getEntries(0).getMembers(0).getPoolId().getUnknownFields().hasField(100)).isTrue();
    ScriptedRelay relay = new ScriptedRelay();
    relay.readiness = ScriptedRelay.sendAndComplete(List.of(plain, decorated));
    try (InProcessRelay r = new InProcessRelay(relay); RelayStream<TopologySnapshot> s = r.client.watchReadiness("me")) {
      assertThat(next(s)).isEqualTo(snapshot);
      assertThat(next(s)).isEqualTo(snapshot);
    }
    ScriptedRelay wire = new ScriptedRelay();
    wire.readiness = ScriptedRelay.sendAndComplete(List.of(plain, decorated));
    try (InProcessRelay r = new InProcessRelay(wire);
        RelayStream<dev.kvrelay.engine.wire.ReadinessUpdate> s = r.client.watchReadinessUpdates("me")) {
      dev.kvrelay.engine.wire.ReadinessUpdate a = next(s);
      dev.kvrelay.engine.wire.ReadinessUpdate b = next(s);
      assertThat(a).isEqualTo(dev.kvrelay.engine.wire.ReadinessUpdate.of(snapshot));
      assertThat(b).isEqualTo(a);
    }
  }

  @Test
  void c26_poolLoadEntriesWithField100DecodeIdenticallyAndNoneIsExcluded() throws Exception {
    KvPoolLoadUpdate update = new KvPoolLoadUpdate(5, 1_700_000_000_000L, 1000, List.of(
        new KvPoolLoadEntry(producer(41), 10, 100, 2, 4), new KvPoolLoadEntry(producer(42), -1L, -1L, 1, 1)));
    var plain = WireCodec.toProto(RELAY, update);
    // update, relay; per entry: itself, producer, pool id, domain, 2 digests, format = 7
    var decorated = decorate(plain, 2 + 2 * 7);
    ScriptedRelay relay = new ScriptedRelay();
    relay.poolLoad = ScriptedRelay.sendAndComplete(List.of(plain, decorated));
    try (InProcessRelay r = new InProcessRelay(relay); RelayStream<KvPoolLoadUpdate> s = r.client.watchPoolLoad("me")) {
      assertThat(next(s)).isEqualTo(update);
      KvPoolLoadUpdate b = next(s);
      assertThat(b).isEqualTo(update);
      assertThat(b.pools().get(0).producer()).isEqualTo(producer(41)).hasSameHashCodeAs(producer(41));
      assertThat(r.client.stats().excludedPoolLoadEntries()).isZero();
    }
  }

  @Test
  void c26_servingLoadEntriesWithField100DecodeIdenticallyAndNoneIsExcluded() throws Exception {
    PoolServingLoad a = new PoolServingLoad(producer(41), new ServingLoadView(Optional.empty(),
        TokenLoadStats.forPool(OptionalLong.of(5), OptionalLong.of(6)), DataStatus.COMPLETE, 1234),
        PoolDeploymentStatus.EMPTY);
    ServingLoadUpdate update = new ServingLoadUpdate(3, 77, 1000, List.of(a), List.of());
    var plain = WireCodec.toProto(RELAY, update);
    var decorated = decorate(plain, 2 + 7);
    ScriptedRelay relay = new ScriptedRelay();
    relay.servingLoad = ScriptedRelay.sendAndComplete(List.of(plain, decorated));
    try (InProcessRelay r = new InProcessRelay(relay);
        RelayStream<ServingLoadUpdate> s = r.client.watchServingLoad("me")) {
      assertThat(next(s)).isEqualTo(update);
      assertThat(next(s)).isEqualTo(update);
      assertThat(r.client.stats().excludedServingPools()).isZero();
      assertThat(r.client.stats().excludedServingModels()).isZero();
    }
  }
}
