package dev.kvrelay.engine.catalog;

import static dev.kvrelay.engine.catalog.CatalogFixtures.descriptor;
import static dev.kvrelay.engine.catalog.CatalogFixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.WireValidationException.Kind;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogValidation;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.DescriptorWire;
import dev.kvrelay.engine.wire.ExcludedDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class CatalogValidatorTest {

  private static final DescriptorWire GOOD = DescriptorWire.of(descriptor(1, 1));

  private static ExcludedDescriptor excludedAlone(DescriptorWire wire) {
    CatalogValidation v = CatalogValidator.validateAll(List.of(wire));
    assertThat(v.usable()).isEmpty();
    assertThat(v.excluded()).hasSize(1);
    return v.excluded().get(0);
  }

  private static DescriptorWire withProducer(UnaryOperator<ProducerIdentity.Wire> change) {
    return new DescriptorWire(change.apply(GOOD.producer()), GOOD.servingEndpoint(), GOOD.registrations(),
        GOOD.querySemantics(), GOOD.poolRoles());
  }

  private static DescriptorWire withRegistration(DescriptorWire.Registration registration) {
    return new DescriptorWire(GOOD.producer(), GOOD.servingEndpoint(), List.of(registration), GOOD.querySemantics(),
        GOOD.poolRoles());
  }

  private static DescriptorWire withRoles(@Nullable List<@Nullable Integer> roles) {
    return new DescriptorWire(GOOD.producer(), GOOD.servingEndpoint(), GOOD.registrations(), GOOD.querySemantics(),
        roles);
  }

  private static DescriptorWire withSemantics(DescriptorWire.@Nullable QuerySemantics semantics) {
    return new DescriptorWire(GOOD.producer(), GOOD.servingEndpoint(), GOOD.registrations(), semantics,
        GOOD.poolRoles());
  }

  @Test
  void producerDescriptorReadsBackEqual() throws Exception {
    KvPoolDescriptor d = descriptor(1, 1);
    assertThat(CatalogValidator.validate(DescriptorWire.of(d))).isEqualTo(d);
  }

  @Test
  void unknownIdentityVersionIsQuarantined() {
    ExcludedDescriptor e = excludedAlone(withProducer(p -> new ProducerIdentity.Wire(
        new KvPoolId.Wire(2, p.poolId().indexerDomain(), p.poolId().dcId()), p.producerIncarnation(),
        p.layoutGeneration(), p.ckfFormat())));
    assertThat(e.quarantined()).isTrue();
    assertThat(e.kind()).isEqualTo(Kind.UNSUPPORTED);
  }

  @Test
  void zeroLayoutGenerationIsRejectedWithItsPoolId() {
    ExcludedDescriptor e = excludedAlone(withProducer(p -> new ProducerIdentity.Wire(
        p.poolId(), p.producerIncarnation(), 0, p.ckfFormat())));
    assertThat(e.kind()).isEqualTo(Kind.MALFORMED);
    assertThat(e.field()).isEqualTo("layout_generation");
    assertThat(e.poolId()).isEqualTo(pool(1));
  }

  @Test
  void unsupportedCkfFormatIsQuarantined() {
    ExcludedDescriptor e = excludedAlone(withProducer(p -> new ProducerIdentity.Wire(
        p.poolId(), p.producerIncarnation(), 1, new CkfFormat.Wire(2, CkfFormat.DEFAULT_SEED, 1024, 16, 4))));
    assertThat(e.kind()).isEqualTo(Kind.UNSUPPORTED);
  }

  @Test
  void missingProducerOrEndpointOrSemanticsIsRejected() {
    assertThat(excludedAlone(withProducer(p -> null)).kind()).isEqualTo(Kind.MALFORMED);
    assertThat(excludedAlone(new DescriptorWire(GOOD.producer(), null, GOOD.registrations(), GOOD.querySemantics(),
        GOOD.poolRoles())).field()).isEqualTo("serving_endpoint");
    assertThat(excludedAlone(new DescriptorWire(GOOD.producer(), new DescriptorWire.Endpoint("ns", " c", "e"),
        GOOD.registrations(), GOOD.querySemantics(), GOOD.poolRoles())).kind()).isEqualTo(Kind.MALFORMED);
    assertThat(excludedAlone(withSemantics(null)).field()).isEqualTo("query_semantics");
  }

  @Test
  void unsetTargetOneofIsQuarantinedMissingTargetRejected() {
    assertThat(excludedAlone(withRegistration(new DescriptorWire.Registration(
        "llama", ModelTarget.WireCase.NOT_SET, null, null, List.of()))).kind()).isEqualTo(Kind.UNSUPPORTED);
    assertThat(excludedAlone(withRegistration(new DescriptorWire.Registration(
        "llama", null, null, null, List.of()))).kind()).isEqualTo(Kind.MALFORMED);
  }

  @Test
  void duplicateAliasIsRejected() {
    assertThat(excludedAlone(withRegistration(new DescriptorWire.Registration(
        "llama", ModelTarget.WireCase.BASE, "llama", null, List.of("a", "a")))).kind()).isEqualTo(Kind.MALFORMED);
  }

  @Test
  void querySemanticsRules() {
    assertThat(excludedAlone(withSemantics(new DescriptorWire.QuerySemantics(0, 1))).kind()).isEqualTo(Kind.MALFORMED);
    assertThat(excludedAlone(withSemantics(new DescriptorWire.QuerySemantics(16, 0))).kind())
        .isEqualTo(Kind.MALFORMED);
    assertThat(excludedAlone(withSemantics(new DescriptorWire.QuerySemantics(16, 9))).kind())
        .isEqualTo(Kind.UNSUPPORTED);
  }

  @Test
  void poolRoleRules() {
    assertThat(excludedAlone(withRoles(List.of())).kind()).isEqualTo(Kind.MALFORMED);
    assertThat(excludedAlone(withRoles(null)).kind()).isEqualTo(Kind.MALFORMED);
    assertThat(excludedAlone(withRoles(List.of(0))).kind()).isEqualTo(Kind.MALFORMED);
    assertThat(excludedAlone(withRoles(List.of(2, 2))).kind()).isEqualTo(Kind.MALFORMED);
    assertThat(excludedAlone(withRoles(List.of(2, 9))).kind()).isEqualTo(Kind.UNSUPPORTED);
    assertThat(excludedAlone(withRoles(Arrays.asList(2, null))).kind()).isEqualTo(Kind.MALFORMED);
  }

  @Test
  void unsortedRolesOnTheWireAreAcceptedAndSorted() throws Exception {
    assertThat(CatalogValidator.validate(withRoles(List.of(5, 1))).poolRoles())
        .extracting(r -> r.wireValue()).containsExactly(1, 5);
  }

  @Test
  void eachDescriptorIsValidatedOnItsOwn() {
    List<@Nullable DescriptorWire> pools = new ArrayList<>();
    pools.add(DescriptorWire.of(descriptor(3, 1)));
    pools.add(withRoles(List.of(9)));
    pools.add(null);
    pools.add(DescriptorWire.of(descriptor(2, 4)));
    CatalogValidation v = CatalogValidator.validateAll(pools);
    assertThat(v.usable()).containsExactly(descriptor(3, 1), descriptor(2, 4));
    assertThat(v.excluded()).extracting(ExcludedDescriptor::index).containsExactly(1, 2);
    assertThat(v.excluded().get(0).quarantined()).isTrue();
    assertThat(v.excluded().get(1).quarantined()).isFalse();
  }

  /** Not in the spec (own choice, fail closed): a pool id listed twice excludes every copy. */
  @Test
  void decisionDuplicatePoolIdExcludesEveryCopy() {
    CatalogValidation v = CatalogValidator.validateAll(
        List.of(DescriptorWire.of(descriptor(1, 1)), DescriptorWire.of(descriptor(1, 2)), DescriptorWire.of(descriptor(2, 1))));
    assertThat(v.usable()).containsExactly(descriptor(2, 1));
    assertThat(v.excluded()).extracting(ExcludedDescriptor::index).containsExactly(0, 1);
    assertThat(v.excluded()).allSatisfy(e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED));
  }

  @Test
  void nullSnapshotListIsEmpty() {
    CatalogValidation v = CatalogValidator.validateAll(null);
    assertThat(v.usable()).isEmpty();
    assertThat(v.excluded()).isEmpty();
  }
}
