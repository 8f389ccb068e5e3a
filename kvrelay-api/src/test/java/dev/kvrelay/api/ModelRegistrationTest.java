package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** producer.md §4 registrations: normalization and order; ModelTarget. */
class ModelRegistrationTest {

  @Test
  void normalizedRemovesSelfDeduplicatesAndSorts() {
    ModelRegistration r = ModelRegistration.normalized(
        "llama", new ModelTarget.Base("llama"), List.of("zeta", "llama", "chat", "zeta", "alpha"));
    assertThat(r.aliases()).containsExactly("alpha", "chat", "zeta");
  }

  @Test
  void trustedConstructorRejectsDuplicatesAndBadText() {
    ModelTarget base = new ModelTarget.Base("llama");
    assertThatThrownBy(() -> new ModelRegistration("llama", base, List.of("a", "a")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModelRegistration(" llama", base, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModelTarget.Lora("llama", ""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aliasesAreAnUnmodifiableCopy() {
    List<String> aliases = new ArrayList<>(List.of("chat"));
    ModelRegistration r = new ModelRegistration("llama", new ModelTarget.Base("llama"), aliases);
    aliases.add("other");
    assertThat(r.aliases()).containsExactly("chat");
    assertThatThrownBy(() -> r.aliases().add("x")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void sortOrderIsModelThenBaseBeforeLoraThenAliases() {
    ModelRegistration aBase = new ModelRegistration("a", new ModelTarget.Base("m"), List.of());
    ModelRegistration aLora = new ModelRegistration("a", new ModelTarget.Lora("m", "ad"), List.of());
    ModelRegistration aLoraZ = new ModelRegistration("a", new ModelTarget.Lora("m", "ad"), List.of("z"));
    ModelRegistration aLoraOtherAdapter = new ModelRegistration("a", new ModelTarget.Lora("m", "ae"), List.of());
    ModelRegistration bBase = new ModelRegistration("b", new ModelTarget.Base("a"), List.of());
    List<ModelRegistration> expected = List.of(aBase, aLora, aLoraZ, aLoraOtherAdapter, bBase);
    List<ModelRegistration> shuffled = new ArrayList<>(expected);
    Collections.reverse(shuffled);
    Collections.sort(shuffled);
    assertThat(shuffled).containsExactlyElementsOf(expected);
  }

  @Test
  void loraAdapterIsTheCanonicalSaltNotAnAlias() {
    ModelTarget.Lora lora = new ModelTarget.Lora("llama", "sql-lora");
    ModelRegistration r = new ModelRegistration("sql", lora, List.of("sql-chat"));
    assertThat(((ModelTarget.Lora) r.target()).adapter()).isEqualTo("sql-lora");
    assertThat(r.target().baseModel()).isEqualTo("llama");
  }
}
