package dev.kvrelay.spi.discovery;

import static dev.kvrelay.spi.discovery.TestRecords.byKey;
import static dev.kvrelay.spi.discovery.TestRecords.endpoint;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DiscoveryDiffTest {

  @Test
  void diffRemovesWhatVanishedAndUpsertsWhatIsNewOrChanged() {
    EndpointRecord a = endpoint("n", "c", "e", 1, "h:1/e");
    EndpointRecord b = endpoint("n", "c", "e", 2, "h:2/e");
    EndpointRecord c = endpoint("n", "c", "e", 3, "h:3/e");
    EndpointRecord bMoved = endpoint("n", "c", "e", 2, "h:22/e");
    EndpointRecord d = endpoint("n", "c", "e", 4, "h:4/e");
    DiscoveryDiff diff = DiscoveryDiff.between(byKey(List.of(a, b, c)), List.of(d, bMoved, c));
    assertThat(diff.upserted()).containsExactly(d, bMoved);
    assertThat(diff.removed()).containsExactly(a.key());
    assertThat(DiscoveryDiff.between(byKey(List.of(a, b)), List.of(b, a)).isEmpty()).isTrue();
  }

  @Test
  void laterDuplicateInTheRelistWins() {
    EndpointRecord v1 = endpoint("n", "c", "e", 1, "h:1/e");
    EndpointRecord v2 = endpoint("n", "c", "e", 1, "h:2/e");
    assertThat(DiscoveryDiff.between(byKey(List.of(v1)), List.of(v1, v2)).upserted()).containsExactly(v2);
    assertThat(DiscoveryDiff.between(byKey(List.of(v2)), List.of(v1, v2)).isEmpty()).isTrue();
  }
}
