package dev.kvrelay.launcher.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.launcher.InspectTestWorkers;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.launcher.inspect.InspectTestRelay.Run;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code query --lora} against a real relay whose pool {@code ns/backend/generate} serves {@code llama} (3 blocks of
 * a prompt cached by the base worker) and its LoRA adapter {@code sql-v1} served as {@code llama-sql} (4 blocks of
 * the same prompt cached, salted with the adapter, by the adapter worker), while the first catalog pool
 * ({@code ns/a-first/generate}) serves another model: the LoRA query finds the adapter's pool and answers the
 * adapter's depth, the plain query the base depth.
 */
@Timeout(120)
class InspectLoraQueryTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static InspectTestRelay relay;
  static RelayEngine engine;
  static String prompt;

  @BeforeAll
  static void start() throws Exception {
    relay = InspectTestRelay.start();
    engine = relay.engine;
    SystemTestWorkers.start("ns/a-first/generate", 5, "mistral", relay.discovery, relay.plane, relay.requests);
    InspectTestWorkers.AdapterWorker adapter = InspectTestWorkers.startAdapter("ns/backend/generate", 8, "llama",
        "llama-sql", "sql-v1", relay.discovery, relay.plane, relay.requests);
    InspectTestRelay.await("the adapter registered", () -> registration(backend()) != null);
    assertThat(adapter.cache(InspectTestRelay.tokens(100, 4))).isEqualTo(4);
    InspectTestRelay.await("7 blocks resident in ns/backend/generate", () -> engine.stats().pools().stream()
        .anyMatch(p -> p.actor() != null && p.actor().producer().residentCount() == 7));
    prompt = InspectTestRelay.csv(InspectTestRelay.tokens(100, 4));
  }

  @AfterAll
  static void stop() throws Exception {
    relay.close();
  }

  private static KvPoolDescriptor backend() {
    return engine.catalog().pools().stream().filter(p -> p.servingEndpoint().component().equals("backend"))
        .findFirst().orElse(null);
  }

  private static ModelRegistration registration(KvPoolDescriptor pool) {
    return pool == null ? null : pool.registrations().stream().filter(r -> r.target() instanceof ModelTarget.Lora)
        .findFirst().orElse(null);
  }

  @Test
  void theLoraQueryAnswersTheAdaptersPoolWithTheAdaptersDepth() throws Exception {
    List<KvPoolDescriptor> pools = engine.catalog().pools();
    assertThat(pools.get(0).servingEndpoint().component()).as("the first pool lacks the adapter").isEqualTo("a-first");
    ModelRegistration lora = registration(backend());
    assertThat(lora.target()).isEqualTo(new ModelTarget.Lora("llama", "sql-v1"));

    for (String name : List.of("sql-v1", "llama-sql")) {
      Run r = InspectTestRelay.run("query", "--target", relay.target(), "--tokens", prompt, "--lora", name);
      assertThat(r.status()).as(r.err()).isZero();
      JsonNode a = JSON.readTree(r.out());
      assertThat(a.get("pool").asText()).as(name).isEqualTo("ns.backend.generate");
      assertThat(a.get("model").asText()).isEqualTo(lora.canonicalModelId());
      assertThat(a.get("lora").asText()).as("salted with the canonical adapter")
          .isEqualTo(((ModelTarget.Lora) lora.target()).adapter());
      assertThat(a.get("requestBlocks").asInt()).isEqualTo(4);
      assertThat(a.get("prefixBlocks").asInt()).as("the adapter worker's 4 salted blocks").isEqualTo(4);
    }

    Run base = InspectTestRelay.run("query", "ns.backend.generate", "--target", relay.target(), "--tokens", prompt);
    assertThat(base.status()).as(base.err()).isZero();
    JsonNode b = JSON.readTree(base.out());
    assertThat(b.get("prefixBlocks").asInt()).as("the base worker's 3 unsalted blocks").isEqualTo(3);
    assertThat(b.has("lora")).isFalse();
  }

  @Test
  void aLoraAdapterThePoolDoesNotRegisterIsACallFailureNamingIt() {
    Run other = InspectTestRelay.run("query", "ns.a-first.generate", "--target", relay.target(), "--tokens", prompt,
        "--lora", "sql-v1");
    assertThat(other.status()).as(other.out()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(other.err()).contains("no catalog pool ns.a-first.generate registering LoRA adapter sql-v1");

    Run unknown = InspectTestRelay.run("query", "--target", relay.target(), "--tokens", prompt, "--lora", "nope");
    assertThat(unknown.status()).isEqualTo(InspectCommand.CALL_FAILED);
    assertThat(unknown.err()).contains("no catalog pool registering LoRA adapter nope (catalog revision ");
  }
}
