package dev.kvrelay.grpc.server;

import static dev.kvrelay.grpc.server.KvEventRelayConformanceTest.MARKER;
import static dev.kvrelay.grpc.server.KvEventRelayConformanceTest.catalogProducer;
import static dev.kvrelay.grpc.server.KvEventRelayConformanceTest.le;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.UnknownFieldSet;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.FilterUpdateKind;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.wire.RelayStatus;
import dev.kvrelay.grpc.wire.WireCodec;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * More server-visible conformance behaviours of wan-grpc.md §9 (C2, C3, C23, C26, C46) over real loopback h2c,
 * completing {@link KvEventRelayConformanceTest}; one test each ({@code cNN_…}).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoreConformanceTest {
  /** CBI1 snapshot chunk body: chunk index at offset 48, chunk count at 52 (little endian u32). */
  private static final int CHUNK_INDEX_OFFSET = 48;
  private static final int CHUNK_COUNT_OFFSET = 52;
  /** wan-grpc.md §3: a snapshot chunk carries at most 524 288 buckets. */
  private static final int BUCKETS_PER_CHUNK = 524_288;

  @Test
  void c02_catalogHeartbeatAt10msRepeatsRevisionSnapshotAndRelay() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config().catalogHeartbeatIntervalMs(10))) {
      f.worker(1).start();
      f.awaitCatalog(c -> c.pools().size() == 1);
      ServerFixture.Collector<KvPoolCatalogUpdate> catalog = new ServerFixture.Collector<>();
      f.async.watchKvPoolCatalog(WireCodec.watchCatalogRequest("consumer-a/catalog"), catalog);
      KvPoolCatalogUpdate first = catalog.next();
      assertThat(first.getSnapshot().getPoolsCount()).isEqualTo(1);
      // the default heartbeat is 10 s: a second message within 2 s can only be the 10 ms heartbeat
      KvPoolCatalogUpdate second = catalog.messages.poll(2, TimeUnit.SECONDS);
      assertThat(second).as("a catalog heartbeat within 2 s").isNotNull();
      assertThat(second.getRevision()).isEqualTo(first.getRevision());
      assertThat(second.getSnapshot()).isEqualTo(first.getSnapshot());
      assertThat(second.getRelay()).isEqualTo(first.getRelay());
      assertThat(second.getContractMarker()).isEqualTo(MARKER);
      assertThat(second.getProtocolVersion()).isEqualTo(1);
      catalog.cancel();
    }
  }

  @Test
  void c03_multiChunkSnapshotIsContiguousThenAHeartbeatAtTheSnapshotSequence() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config(4_000_000).poolHeartbeatIntervalMs(1))) {
      assertThat(f.engine.config().bucketCount()).as("pool > 524 288 buckets").isGreaterThan(BUCKETS_PER_CHUNK);
      f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> pool = KvEventRelayConformanceTest.open(f, "consumer-a/ckf", producer);
      FilterUpdate first = pool.next();
      assertThat(first.getKind()).isEqualTo(FilterUpdateKind.FILTER_UPDATE_KIND_SNAPSHOT_CHUNK);
      int count = le(first.getPayload()).getInt(CHUNK_COUNT_OFFSET);
      long buckets = producer.getCkfFormat().getBucketCount();
      assertThat(count).isEqualTo((int) ((buckets + BUCKETS_PER_CHUNK - 1) / BUCKETS_PER_CHUNK)).isGreaterThan(1);
      long seq = first.getSequence();
      List<FilterUpdate> chunks = new ArrayList<>(List.of(first));
      for (int i = 1; i < count; i++) {
        chunks.add(pool.next());
      }
      for (int i = 0; i < count; i++) {
        FilterUpdate c = chunks.get(i);
        assertThat(c.getKind()).as("message %s of the snapshot is a chunk, not a heartbeat", i)
            .isEqualTo(FilterUpdateKind.FILTER_UPDATE_KIND_SNAPSHOT_CHUNK);
        assertThat(le(c.getPayload()).getInt(CHUNK_INDEX_OFFSET)).as("chunk index in order").isEqualTo(i);
        assertThat(c.getSequence()).isEqualTo(seq);
        assertThat(c.getBaseSequence()).isEqualTo(seq);
        assertThat(c.getProducer()).isEqualTo(producer);
      }
      FilterUpdate heartbeat = pool.next();
      assertThat(heartbeat.getKind()).isEqualTo(FilterUpdateKind.FILTER_UPDATE_KIND_HEARTBEAT);
      assertThat(heartbeat.getProducer()).isEqualTo(producer);
      assertThat(heartbeat.getBaseSequence()).isEqualTo(seq);
      assertThat(heartbeat.getSequence()).isEqualTo(seq);
      assertThat(heartbeat.getPayload().isEmpty()).isTrue();
      assertThat(heartbeat.getContractMarker()).isEqualTo(MARKER);
      pool.cancel();
    }
  }

  /**
   * C23 over the server where the engine can be driven to it: a retired generation's open stream ends UNAVAILABLE
   * with PUBLICATION_UNAVAILABLE (a live-resource refusal, RESOURCE_EXHAUSTED, is c12/c22).
   */
  @Test
  void c23_retiredPublicationEndsTheOpenStreamUnavailable() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Worker w = f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> pool = KvEventRelayConformanceTest.open(f, "consumer-a/ckf", producer);
      KvEventRelayConformanceTest.snapshot(pool);
      w.die();
      Status end = pool.awaitEnd();
      assertThat(end.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(pool.reason()).isEqualTo("RELAY_ERROR_REASON_PUBLICATION_UNAVAILABLE");
    }
  }

  /**
   * C23 for the publication errors the engine cannot be driven to from outside (invalid publication, internal):
   * the status every publication error is sent with (the codes are the spec's table, not read from the code).
   */
  @Test
  void c23_publicationErrorToStatusCodeMapping() {
    Map<RelayErrorReason, Status.Code> expected = Map.of(
        RelayErrorReason.PUBLICATION_UNAVAILABLE, Status.Code.UNAVAILABLE,
        RelayErrorReason.RESOURCE_LIMIT, Status.Code.RESOURCE_EXHAUSTED,
        RelayErrorReason.INVALID_PUBLICATION, Status.Code.FAILED_PRECONDITION,
        RelayErrorReason.INTERNAL, Status.Code.INTERNAL);
    expected.forEach((reason, code) -> {
      StatusRuntimeException e = RelayStatus.toStatus(new RelayException(reason, "publication failed"));
      assertThat(e.getStatus().getCode()).as("%s", reason).isEqualTo(code);
      assertThat(e.getTrailers().get(RelayStatus.REASON_KEY)).isEqualTo("RELAY_ERROR_REASON_" + reason.name());
    });
  }

  @Test
  void c26_unknownField100InGetRelayInfoRequestIsIgnored() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      // field 100 varint 7 (A0 06 07), field 100 bytes "zz" (A2 06 02 7A 7A), then contract_marker (FD 07 …)
      byte[] request = HexFormat.of().parseHex("a00607" + "a206027a7a" + "fd073152564b");
      byte[] response = ClientCalls.blockingUnaryCall(f.channel, rawGetRelayInfo(),
          CallOptions.DEFAULT.withDeadlineAfter(ServerFixture.DEADLINE_MS, TimeUnit.MILLISECONDS), request);
      RelayInfo info = RelayInfo.parseFrom(response);
      assertThat(info.getProtocolVersion()).isEqualTo(1);
      assertThat(info.getContractMarker()).isEqualTo(MARKER);
      assertThat(info.getUnknownFields().asMap()).isEmpty();
    }
  }

  @Test
  void c26_unknownField100InSubscribeKvPoolIsIgnoredAndNeverEntersTheProducerKey() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      UnknownFieldSet extra = UnknownFieldSet.newBuilder()
          .addField(100, UnknownFieldSet.Field.newBuilder().addVarint(7).build()).build();
      ProducerIdentity decorated = producer.toBuilder().setUnknownFields(extra)
          .setPoolId(producer.getPoolId().toBuilder().setUnknownFields(extra))
          .setCkfFormat(producer.getCkfFormat().toBuilder().setUnknownFields(extra)).build();
      SubscribeKvPoolRequest request = KvEventRelayConformanceTest.subscribe("consumer-a/ckf", decorated).toBuilder()
          .setUnknownFields(extra).build();
      assertThat(request.toByteString().toByteArray()).as("field 100 is on the wire")
          .containsSequence((byte) 0xA0, (byte) 0x06, (byte) 0x07);
      ServerFixture.Collector<FilterUpdate> pool = new ServerFixture.Collector<>();
      f.async.subscribeKvPool(request, pool);
      List<FilterUpdate> chunks = KvEventRelayConformanceTest.snapshot(pool);
      for (FilterUpdate c : chunks) {
        assertThat(c.getProducer()).as("the catalog key, unaffected by field 100").isEqualTo(producer);
      }
      pool.cancel();
      // the catalog key after the decorated subscribe is unchanged too
      assertThat(catalogProducer(f)).isEqualTo(producer);
    }
  }

  @Test
  void c46_getRelayInfoOverCurlH2c() throws Exception {
    assumeTrue(CurlSmoke.available(), "curl with HTTP/2 is not available");
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      RelayInfo info = CurlSmoke.getRelayInfo(f.server.port());
      assertThat(info.getContractMarker()).isEqualTo(MARKER);
    }
  }

  /** GetRelayInfo with raw bytes in both directions (the exact request bytes go on the wire). */
  private static MethodDescriptor<byte[], byte[]> rawGetRelayInfo() {
    return MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(KvEventRelayGrpc.getGetRelayInfoMethod().getFullMethodName())
        .setRequestMarshaller(RawBytes.INSTANCE).setResponseMarshaller(RawBytes.INSTANCE).build();
  }

  /** Immutable and thread-safe: the identity marshaller for byte arrays. */
  private enum RawBytes implements MethodDescriptor.Marshaller<byte[]> {
    INSTANCE;

    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
