package dev.kvrelay.grpc.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.EngineFaults;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.FilterUpdateKind;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * wan-grpc.md §9 C23 through the server: publication errors that need a failing encoder or a bad publication,
 * provoked inside the engine with the engine test-jar's failure injection ({@link EngineFaults}), end a live
 * {@code SubscribeKvPool} stream over real loopback h2c with the mapped status and the reason trailer.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PublicationErrorConformanceTest {

  private static KvPoolDescriptor enginePool(ServerFixture f) throws InterruptedException {
    return f.awaitCatalog(c -> c.pools().size() == 1).pools().get(0);
  }

  private static boolean lists(CatalogSnapshot c, dev.kvrelay.api.ProducerIdentity producer) {
    return c.pools().stream().anyMatch(p -> p.producer().equals(producer));
  }

  @Test
  void c23_encoderPanicEndsALivePoolStreamInternalWithTrailerInternalAndFencesTheGeneration() throws Exception {
    // > 524 288 buckets: 2 snapshot chunks; the first is encoded for real and delivered, the second panics
    try (ServerFixture f = new ServerFixture(ServerFixture.config(4_000_000))) {
      f.worker(1).start();
      KvPoolDescriptor pool = enginePool(f);
      ProducerIdentity producer = KvEventRelayConformanceTest.catalogProducer(f);
      EngineFaults.panicSnapshotEncoder(f.engine, 1);
      ServerFixture.Collector<FilterUpdate> stream = KvEventRelayConformanceTest.open(f, "consumer-a/ckf", producer);
      FilterUpdate first = stream.next();
      assertThat(first.getKind()).isEqualTo(FilterUpdateKind.FILTER_UPDATE_KIND_SNAPSHOT_CHUNK);
      Status end = stream.awaitEnd();
      assertThat(end.getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(stream.reason()).isEqualTo("RELAY_ERROR_REASON_INTERNAL");
      assertThat(stream.messages).as("nothing after the failing chunk").isEmpty();
      EngineFaults.restoreSnapshotEncoder(f.engine);
      // the generation is fenced: withdrawn from the catalog, a new one follows
      f.awaitCatalog(c -> !lists(c, pool.producer()) && c.pools().size() == 1);
      assertThat(f.engine.stats().hubFaults()).isEqualTo(1);
    }
  }

  @Test
  void c23_invalidPublicationEndsALivePoolStreamFailedPreconditionWithTrailerInvalidPublication() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      KvPoolDescriptor pool = enginePool(f);
      KvPoolId poolId = pool.poolId();
      ProducerIdentity producer = KvEventRelayConformanceTest.catalogProducer(f);
      ServerFixture.Collector<FilterUpdate> stream = KvEventRelayConformanceTest.open(f, "consumer-a/ckf", producer);
      assertThat(KvEventRelayConformanceTest.snapshot(stream)).isNotEmpty();
      assertThat(EngineFaults.injectPublicationGap(f.engine, poolId)).as("the hub is live").isTrue();
      Status end = stream.awaitEnd();
      assertThat(end.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(stream.reason()).isEqualTo("RELAY_ERROR_REASON_INVALID_PUBLICATION");
      f.awaitCatalog(c -> !lists(c, pool.producer()) && c.pools().size() == 1);
      assertThat(f.engine.stats().hubFaults()).isEqualTo(1);
    }
  }

  @Test
  void c40_cancelledEncoderEndsALivePoolStreamUnavailableWithoutAFence() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      KvPoolDescriptor pool = enginePool(f);
      ProducerIdentity producer = KvEventRelayConformanceTest.catalogProducer(f);
      EngineFaults.cancelSnapshotEncoder(f.engine);
      ServerFixture.Collector<FilterUpdate> stream = KvEventRelayConformanceTest.open(f, "consumer-a/ckf", producer);
      assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(stream.reason()).isEqualTo("RELAY_ERROR_REASON_PUBLICATION_UNAVAILABLE");
      EngineFaults.restoreSnapshotEncoder(f.engine);
      ServerFixture.Collector<FilterUpdate> again = KvEventRelayConformanceTest.open(f, "consumer-b/ckf", producer);
      assertThat(KvEventRelayConformanceTest.snapshot(again)).isNotEmpty();
      again.cancel();
      assertThat(f.engine.catalog().pools()).extracting(KvPoolDescriptor::producer).containsExactly(pool.producer());
      assertThat(f.engine.stats().hubFaults()).isZero();
    }
  }
}
