package dev.kvrelay.grpc.client;

import static dev.kvrelay.grpc.client.RelayGrpcClientTest.RELAY;
import static dev.kvrelay.grpc.client.RelayGrpcClientTest.failure;
import static dev.kvrelay.grpc.client.RelayGrpcClientTest.next;
import static dev.kvrelay.grpc.client.RelayGrpcClientTest.producer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.engine.wire.PoolDeploymentStatus;
import dev.kvrelay.engine.wire.PoolServingLoad;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadView;
import dev.kvrelay.engine.wire.TokenLoadStats;
import dev.kvrelay.grpc.wire.ServingLoadWindow;
import dev.kvrelay.grpc.wire.WireCodec;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * C29 (wan-grpc.md §9, §1.7): a pool entry whose producer has identity_version + 1 is accepted at window level (the
 * window is delivered, the other entries with it) but the entry itself is unsupported: quarantined, left out and
 * counted. A missing producer, by contrast, makes the whole window unusable.
 */
class ServingLoadEntryValidationTest {

  static PoolServingLoad pool(long dc, long prefillTokens) {
    return new PoolServingLoad(producer(dc), new ServingLoadView(Optional.empty(),
        TokenLoadStats.forPool(OptionalLong.of(prefillTokens), OptionalLong.of(6)), DataStatus.COMPLETE, 1234),
        PoolDeploymentStatus.EMPTY);
  }

  /** A window of pools 41, 42, 43 whose middle entry's pool id says identity_version 2. */
  static dev.kvrelay.grpc.proto.ServingLoadUpdate windowWithNewerIdentityInTheMiddle() {
    var w = WireCodec.toProto(RELAY, new ServingLoadUpdate(4, 88, 1000,
        List.of(pool(41, 5), pool(42, 7), pool(43, 9)), List.of())).toBuilder();
    var middle = w.getPoolsBuilder(1).getProducerBuilder().getPoolIdBuilder();
    assertThat(middle.getIdentityVersion()).isEqualTo(1);
    middle.setIdentityVersion(middle.getIdentityVersion() + 1);
    return w.build();
  }

  @Test
  void c29_identityVersionPlusOneOnAPoolEntryIsAcceptedAtWindowLevelButTheEntryIsUnsupported() throws Exception {
    ServingLoadWindow window = WireCodec.fromProto(windowWithNewerIdentityInTheMiddle());
    assertThat(window.update().windowSequence()).isEqualTo(4);
    assertThat(window.update().pools()).containsExactly(pool(41, 5), pool(43, 9));
    assertThat(window.excludedPools()).singleElement().satisfies(e -> {
      assertThat(e.index()).isEqualTo(1);
      assertThat(e.kind()).isEqualTo(WireValidationException.Kind.UNSUPPORTED);
      assertThat(e.field()).contains("identity_version");
    });
    assertThat(window.excludedModels()).isEmpty();
  }

  @Test
  void c29_throughTheClientTheWindowArrivesWithoutTheEntryWhichIsCountedAndTheStreamGoesOn() throws Exception {
    var next = WireCodec.toProto(RELAY, new ServingLoadUpdate(5, 89, 1000, List.of(pool(41, 1)), List.of()));
    ScriptedRelay relay = new ScriptedRelay();
    relay.servingLoad = ScriptedRelay.sendAndComplete(List.of(windowWithNewerIdentityInTheMiddle(), next));
    try (InProcessRelay r = new InProcessRelay(relay);
        RelayStream<ServingLoadUpdate> s = r.client.watchServingLoad("me")) {
      assertThat(next(s)).isEqualTo(new ServingLoadUpdate(4, 88, 1000, List.of(pool(41, 5), pool(43, 9)), List.of()));
      assertThat(r.client.stats().excludedServingPools()).isEqualTo(1);
      assertThat(next(s)).isEqualTo(new ServingLoadUpdate(5, 89, 1000, List.of(pool(41, 1)), List.of()));
      assertThat(r.client.stats().rejectedMessages()).isZero();
    }
  }

  @Test
  void c29_aMissingProducerMakesTheWholeWindowUnusableThroughTheClient() throws Exception {
    var missing = windowWithNewerIdentityInTheMiddle().toBuilder();
    missing.getPoolsBuilder(2).clearProducer();
    ScriptedRelay relay = new ScriptedRelay();
    relay.servingLoad = ScriptedRelay.sendAndComplete(List.of(missing.build()));
    try (InProcessRelay r = new InProcessRelay(relay);
        RelayStream<ServingLoadUpdate> s = r.client.watchServingLoad("me")) {
      assertThat(failure(s).reason()).isEqualTo(RelayErrorReason.INVALID_PUBLICATION);
      assertThat(r.client.stats().rejectedMessages()).isEqualTo(1);
    }
  }
}
