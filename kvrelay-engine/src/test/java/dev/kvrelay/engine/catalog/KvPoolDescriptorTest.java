package dev.kvrelay.engine.catalog;

import static dev.kvrelay.engine.catalog.CatalogFixtures.ENDPOINT;
import static dev.kvrelay.engine.catalog.CatalogFixtures.SEMANTICS;
import static dev.kvrelay.engine.catalog.CatalogFixtures.base;
import static dev.kvrelay.engine.catalog.CatalogFixtures.pool;
import static dev.kvrelay.engine.catalog.CatalogFixtures.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.DescriptorException;
import dev.kvrelay.engine.wan.DescriptorViolation;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvPoolDescriptorTest {

  private static final KvPoolId POOL = pool(1);

  private static KvPoolDescriptor attach(List<ModelRegistration> registrations, List<WorkerRole> roles)
      throws DescriptorException {
    return KvPoolDescriptor.of(producer(POOL, 1), ENDPOINT, registrations, SEMANTICS, roles);
  }

  private static DescriptorException failure(List<ModelRegistration> registrations, List<WorkerRole> roles) {
    try {
      attach(registrations, roles);
    } catch (DescriptorException e) {
      return e;
    }
    throw new AssertionError("expected a DescriptorException");
  }

  @Test
  void registrationsSortedAliasesNormalisedRolesSorted() throws DescriptorException {
    KvPoolDescriptor d = attach(
        List.of(base("zeta", "z2", "zeta", "z1"), base("alpha", "b", "a")),
        List.of(WorkerRole.LEGACY, WorkerRole.PREFILL, WorkerRole.DECODE));
    assertThat(d.registrations()).containsExactly(
        new ModelRegistration("alpha", new ModelTarget.Base("alpha"), List.of("a", "b")),
        new ModelRegistration("zeta", new ModelTarget.Base("zeta"), List.of("z1", "z2")));
    assertThat(d.poolRoles()).containsExactly(WorkerRole.PREFILL, WorkerRole.DECODE, WorkerRole.LEGACY);
    assertThat(d.poolId()).isEqualTo(POOL);
    assertThat(d.layoutGeneration()).isEqualTo(1L);
  }

  @Test
  void loraRegistrationBesideItsBaseIsAccepted() throws DescriptorException {
    ModelRegistration lora =
        new ModelRegistration("tenant-a", new ModelTarget.Lora("llama", "tenant-a"), List.of());
    KvPoolDescriptor d = attach(List.of(lora, base("llama")), List.of(WorkerRole.AGGREGATED));
    assertThat(d.registrations()).extracting(ModelRegistration::canonicalModelId).containsExactly("llama", "tenant-a");
  }

  @Test
  void noRegistrationIsRejected() {
    DescriptorException e = failure(List.of(), List.of(WorkerRole.DECODE));
    assertThat(e.violation()).isEqualTo(DescriptorViolation.NO_REGISTRATIONS);
    assertThat(e.getMessage()).isEqualTo("pool " + POOL + " requires at least one canonical model binding");
  }

  @Test
  void sameModelWithSameTargetTwiceIsADuplicate() {
    DescriptorException e = failure(List.of(base("llama", "x"), base("llama", "y")), List.of(WorkerRole.DECODE));
    assertThat(e.violation()).isEqualTo(DescriptorViolation.DUPLICATE_CANONICAL_MODEL);
    assertThat(e.getMessage()).isEqualTo("duplicate canonical model registration llama");
  }

  @Test
  void sameModelWithOtherTargetIsAConflict() {
    ModelRegistration other = new ModelRegistration("llama", new ModelTarget.Base("llama-70b"), List.of());
    DescriptorException e = failure(List.of(base("llama"), other), List.of(WorkerRole.DECODE));
    assertThat(e.violation()).isEqualTo(DescriptorViolation.CONFLICTING_TARGETS);
    assertThat(e.getMessage()).isEqualTo("canonical model llama resolves to conflicting targets in the same pool");
  }

  @Test
  void aliasEqualToAnotherCanonicalModelIsRejected() {
    DescriptorException e = failure(List.of(base("llama", "mistral"), base("mistral")), List.of(WorkerRole.DECODE));
    assertThat(e.violation()).isEqualTo(DescriptorViolation.ALIAS_IS_CANONICAL_MODEL);
    assertThat(e.getMessage()).isEqualTo("model alias mistral conflicts with canonical model mistral in the same pool");
  }

  @Test
  void aliasEqualToItsOwnModelIsNormalisedAway() throws DescriptorException {
    KvPoolDescriptor d = attach(List.of(base("llama", "llama")), List.of(WorkerRole.DECODE));
    assertThat(d.registrations().get(0).aliases()).isEmpty();
  }

  @Test
  void oneAliasForTwoModelsIsRejected() {
    DescriptorException e = failure(List.of(base("llama", "chat"), base("mistral", "chat")), List.of(WorkerRole.DECODE));
    assertThat(e.violation()).isEqualTo(DescriptorViolation.ALIAS_CLAIMED_TWICE);
    assertThat(e.getMessage()).isEqualTo("model alias chat is claimed by both llama and mistral in the same pool");
  }

  @Test
  void noRoleIsRejected() {
    DescriptorException e = failure(List.of(base("llama")), List.of());
    assertThat(e.violation()).isEqualTo(DescriptorViolation.NO_ROLES);
    assertThat(e.getMessage()).isEqualTo("pool requires at least one declared worker role");
  }

  @Test
  void repeatedRoleIsRejected() {
    DescriptorException e = failure(List.of(base("llama")), List.of(WorkerRole.PREFILL, WorkerRole.PREFILL));
    assertThat(e.violation()).isEqualTo(DescriptorViolation.REPEATED_ROLE);
    assertThat(e.getMessage()).isEqualTo("pool repeats declared worker role prefill");
  }

  @Test
  void registrationPreconditionsAreCheckedBeforeRoles() {
    assertThat(failure(List.of(), List.of()).violation()).isEqualTo(DescriptorViolation.NO_REGISTRATIONS);
  }

  @Test
  void registrationAndRoleChangesKeepTheProducerKey() throws DescriptorException {
    KvPoolDescriptor d = attach(List.of(base("llama")), List.of(WorkerRole.DECODE));
    KvPoolDescriptor changed = d.withRegistrations(List.of(base("mistral", "m")))
        .withRoles(List.of(WorkerRole.PREFILL, WorkerRole.DECODE));
    assertThat(changed.producer()).isEqualTo(d.producer());
    assertThat(changed.registrations()).containsExactly(base("mistral", "m"));
    assertThat(changed.poolRoles()).containsExactly(WorkerRole.PREFILL, WorkerRole.DECODE);
    assertThat(d.registrations()).containsExactly(base("llama"));
  }

  @Test
  void badChangeIsTypedAndLeavesTheDescriptorAlone() throws DescriptorException {
    KvPoolDescriptor d = attach(List.of(base("llama")), List.of(WorkerRole.DECODE));
    assertThatThrownBy(() -> d.withRoles(List.of())).isInstanceOf(DescriptorException.class);
    assertThatThrownBy(() -> d.withRegistrations(List.of())).isInstanceOf(DescriptorException.class);
    assertThat(d.poolRoles()).containsExactly(WorkerRole.DECODE);
    assertThat(d.registrations()).containsExactly(base("llama"));
  }

  @Test
  void trustedConstructorRefusesEmptyOrUnsortedRoles() {
    assertThatThrownBy(() -> new KvPoolDescriptor(producer(POOL, 1), ENDPOINT, List.of(), SEMANTICS, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new KvPoolDescriptor(producer(POOL, 1), ENDPOINT, List.of(), SEMANTICS,
        List.of(WorkerRole.DECODE, WorkerRole.PREFILL))).isInstanceOf(IllegalArgumentException.class);
  }
}
