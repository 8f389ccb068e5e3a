package dev.kvrelay.grpc.server;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvPoolCatalogUpdate;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.proto.SubscribeKvPoolRequest;
import dev.kvrelay.grpc.proto.WatchKvPoolCatalogRequest;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Request checks of wan-grpc.md §2.1 beyond the numbered conformance behaviours: order and missing fields. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RequestValidationTest {

  @Test
  void missingExpectedProducer_isInvalidRequest() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Collector<FilterUpdate> c = new ServerFixture.Collector<>();
      f.async.subscribeKvPool(SubscribeKvPoolRequest.newBuilder().setSubscriberId("a")
          .setContractMarker(KvEventRelayConformanceTest.MARKER).build(), c);
      KvEventRelayConformanceTest.assertRejected(c, Status.Code.INVALID_ARGUMENT, RelayErrorReason.INVALID_REQUEST);
    }
  }

  @Test
  void badMarkerWinsOverABadSubscriberIdOnTheCatalog() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Collector<KvPoolCatalogUpdate> c = new ServerFixture.Collector<>();
      f.async.watchKvPoolCatalog(WatchKvPoolCatalogRequest.newBuilder().setSubscriberId("").setContractMarker(7)
          .build(), c);
      KvEventRelayConformanceTest.assertRejected(c, Status.Code.FAILED_PRECONDITION,
          RelayErrorReason.CONTRACT_MISMATCH);
    }
  }

  @Test
  void badSubscriberIdWinsOverAMissingProducer() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      ServerFixture.Collector<FilterUpdate> c = new ServerFixture.Collector<>();
      f.async.subscribeKvPool(SubscribeKvPoolRequest.newBuilder().setSubscriberId("bad\u0007id")
          .setContractMarker(KvEventRelayConformanceTest.MARKER).build(), c);
      KvEventRelayConformanceTest.assertRejected(c, Status.Code.INVALID_ARGUMENT, RelayErrorReason.INVALID_REQUEST);
    }
  }

  @Test
  void withThePoolStreamLimitFullEvenAnUnknownPoolIsResourceExhausted() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config().maxPoolStreamsTotal(1))) {
      f.worker(1).start();
      ProducerIdentity p = KvEventRelayConformanceTest.catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> first = KvEventRelayConformanceTest.open(f, "a", p);
      first.next();
      ProducerIdentity unknown = p.toBuilder().setPoolId(p.getPoolId().toBuilder().setDcId(p.getPoolId().getDcId() ^ 1))
          .build();
      KvEventRelayConformanceTest.assertRejected(KvEventRelayConformanceTest.open(f, "b", unknown),
          Status.Code.RESOURCE_EXHAUSTED, RelayErrorReason.RESOURCE_LIMIT);
      first.cancel();
    }
  }
}
