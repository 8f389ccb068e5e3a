package dev.kvrelay.launcher.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.launcher.inspect.InspectTestRelay.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shared connection options against a real relay behind {@link RecordingRelay}s: {@code --max-msg-sz} is refused
 * below the client's minimum before anything is sent, and the value given (or the 8 MiB default) is the limit a
 * padded answer meets; {@code --authority} is the {@code :authority} every call of every verb carries.
 */
@Timeout(120)
class InspectOptionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MIN = RelayGrpcClient.MIN_MAX_INBOUND_MESSAGE_BYTES;

  static InspectTestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    relay = InspectTestRelay.start();
  }

  @AfterAll
  static void stop() throws Exception {
    relay.close();
  }

  @Test
  void maxMsgSzBelowTheClientsMinimumIsAUsageErrorAndNothingIsSent() throws Exception {
    assertThat(MIN).as("the documented minimum").isEqualTo(4_259_904);
    try (RecordingRelay recording = new RecordingRelay(relay.server.port(), 0)) {
      for (List<String> verb : List.of(List.of("info"), List.of("catalog"), List.of("load"), List.of("pool"),
          List.of("query", "--tokens", "1,2,3"))) {
        String[] args = concat(verb, "--target", recording.target(), "--max-msg-sz", Integer.toString(MIN - 1));
        Run r = InspectTestRelay.run(args);
        assertThat(r.status()).as("%s: %s", verb, r.err()).isEqualTo(InspectCommand.USAGE);
        assertThat(r.err()).contains("--max-msg-sz 4259903 is below the minimum of 4259904 bytes");
        assertThat(r.out()).isEmpty();
      }
      assertThat(recording.calls()).as("no call reached the relay").isEmpty();
      Run atMinimum = InspectTestRelay.run("info", "--target", recording.target(), "--max-msg-sz",
          Integer.toString(MIN));
      assertThat(atMinimum.status()).as(atMinimum.err()).isZero();
    }
  }

  @Test
  void theGivenLimitAndTheEightMebibyteDefaultAreWhatAPaddedAnswerMeets() throws Exception {
    String incarnation = Long.toUnsignedString(relay.engine.identity().relayIncarnation());
    // RelayInfo and catalog updates padded to about 5 MB: over the minimum, under the default.
    try (RecordingRelay padded = new RecordingRelay(relay.server.port(), 5_000_000)) {
      Run info = InspectTestRelay.run("info", "--target", padded.target());
      assertThat(info.status()).as(info.err()).isZero();
      assertThat(JSON.readTree(info.out()).get("relay").get("relayIncarnation").asText()).isEqualTo(incarnation);

      Run small = InspectTestRelay.run("info", "--target", padded.target(), "--max-msg-sz", Integer.toString(MIN));
      assertThat(small.status()).as(small.out()).isEqualTo(InspectCommand.CALL_FAILED);
      assertThat(small.err()).contains("GetRelayInfo: RESOURCE_EXHAUSTED");

      Run pool = InspectTestRelay.run("pool", "--target", padded.target(), "--seconds", "1");
      assertThat(pool.status()).as(pool.err()).isZero();
      assertThat(JSON.readTree(pool.out()).get("valid").asBoolean()).isTrue();
      Run smallPool = InspectTestRelay.run("pool", "--target", padded.target(), "--seconds", "1", "--max-msg-sz",
          Integer.toString(MIN));
      assertThat(smallPool.status()).as(smallPool.out()).isEqualTo(InspectCommand.CALL_FAILED);
      assertThat(smallPool.err()).contains("WatchKvPoolCatalog: RESOURCE_EXHAUSTED");
    }
    // Padded past 8 MiB: the default refuses, a larger limit reads it.
    try (RecordingRelay large = new RecordingRelay(relay.server.port(), InspectCommand.DEFAULT_MAX_MESSAGE_BYTES)) {
      Run byDefault = InspectTestRelay.run("info", "--target", large.target());
      assertThat(byDefault.status()).as(byDefault.out()).isEqualTo(InspectCommand.CALL_FAILED);
      assertThat(byDefault.err()).contains("GetRelayInfo: RESOURCE_EXHAUSTED");
      Run larger = InspectTestRelay.run("info", "--target", large.target(), "--max-msg-sz", "9000000");
      assertThat(larger.status()).as(larger.err()).isZero();
      assertThat(JSON.readTree(larger.out()).get("relay").get("relayIncarnation").asText()).isEqualTo(incarnation);
    }
  }

  @Test
  void authorityIsTheAuthorityOfEveryCallOfMetadataAndPoolVerbs() throws Exception {
    try (RecordingRelay recording = new RecordingRelay(relay.server.port(), 0)) {
      Run plain = InspectTestRelay.run("info", "--target", recording.target());
      assertThat(plain.status()).as(plain.err()).isZero();
      assertThat(recording.calls()).as("without --authority: the target")
          .containsExactly(Map.entry("ServerReflectionInfo", recording.target()),
              Map.entry("GetRelayInfo", recording.target()));

      Run info = InspectTestRelay.run("info", "--target", recording.target(), "--authority", "relay.example:5561");
      assertThat(info.status()).as(info.err()).isZero();
      Run pool = InspectTestRelay.run("pool", "--target", recording.target(), "--seconds", "1", "--authority",
          "relay.example:5561");
      assertThat(pool.status()).as(pool.err()).isZero();
      JsonNode p = JSON.readTree(pool.out());
      assertThat(p.get("valid").asBoolean()).isTrue();
      List<Map.Entry<String, String>> calls = recording.calls();
      assertThat(calls.subList(2, calls.size())).extracting(Map.Entry::getKey)
          .containsExactly("ServerReflectionInfo", "GetRelayInfo", "WatchKvPoolCatalog", "SubscribeKvPool");
      assertThat(calls.subList(2, calls.size())).extracting(Map.Entry::getValue).containsOnly("relay.example:5561");
    }
    Run bad = InspectTestRelay.run("info", "--target", relay.target(), "--authority", "user@relay.example:5561");
    assertThat(bad.status()).isEqualTo(InspectCommand.USAGE);
    assertThat(bad.err()).contains("--authority user@relay.example:5561: ");
  }

  private static String[] concat(List<String> head, String... tail) {
    String[] all = new String[head.size() + tail.length];
    for (int i = 0; i < head.size(); i++) {
      all[i] = head.get(i);
    }
    System.arraycopy(tail, 0, all, head.size(), tail.length);
    return all;
  }
}
