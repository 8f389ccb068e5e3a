package dev.kvrelay.engine.catalog;

import static dev.kvrelay.engine.catalog.CatalogFixtures.ENDPOINT;
import static dev.kvrelay.engine.catalog.CatalogFixtures.SEMANTICS;
import static dev.kvrelay.engine.catalog.CatalogFixtures.pool;
import static dev.kvrelay.engine.catalog.CatalogFixtures.producer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.DescriptorException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogValidation;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.DescriptorWire;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Random registrations from a small shared name space: {@link KvPoolDescriptor#of} succeeds exactly when an
 * independent model of the §2.8 preconditions says so, and successful descriptors hold the §4 invariants;
 * what is accepted reads back equal through the consumer's wire validation.
 */
class KvPoolDescriptorProperties {

  private static final String[] NAMES = {"m0", "m1", "m2", "a0", "a1"};

  private static final Gen<ModelRegistration> REGISTRATIONS = integers().between(0, 2)
      .zip(integers().between(0, 1), lists().of(integers().between(0, 4)).ofSizeBetween(0, 3), (model, lora, aliases) -> {
        String name = NAMES[model];
        ModelTarget target = lora == 0 ? new ModelTarget.Base("base") : new ModelTarget.Lora("base", name);
        List<String> aliasNames = new ArrayList<>();
        for (int a : new LinkedHashSet<>(aliases)) {
          aliasNames.add(NAMES[a]);
        }
        return new ModelRegistration(name, target, aliasNames);
      });

  private static final Gen<List<WorkerRole>> ROLES = lists().of(integers().between(0, 4)).ofSizeBetween(0, 4)
      .map(list -> {
        List<WorkerRole> roles = new ArrayList<>();
        for (int i : list) {
          roles.add(WorkerRole.values()[i]);
        }
        return roles;
      });

  private static boolean modelSaysValid(List<ModelRegistration> registrations, List<WorkerRole> roles) {
    if (registrations.isEmpty() || roles.isEmpty() || new HashSet<>(roles).size() != roles.size()) {
      return false;
    }
    Set<String> models = new HashSet<>();
    for (ModelRegistration r : registrations) {
      if (!models.add(r.canonicalModelId())) {
        return false;
      }
    }
    Map<String, String> owners = new HashMap<>();
    for (ModelRegistration r : registrations) {
      for (String alias : r.aliases()) {
        if (alias.equals(r.canonicalModelId())) {
          continue;
        }
        if (models.contains(alias)) {
          return false;
        }
        String owner = owners.putIfAbsent(alias, r.canonicalModelId());
        if (owner != null && !owner.equals(r.canonicalModelId())) {
          return false;
        }
      }
    }
    return true;
  }

  @Test
  void acceptedExactlyWhenPreconditionsHoldAndNormalised() {
    qt().withExamples(1000).forAll(lists().of(REGISTRATIONS).ofSizeBetween(0, 4), ROLES)
        .checkAssert((registrations, roles) -> {
          boolean valid = modelSaysValid(registrations, roles);
          KvPoolDescriptor d;
          try {
            d = KvPoolDescriptor.of(producer(pool(1), 1), ENDPOINT, registrations, SEMANTICS, roles);
          } catch (DescriptorException e) {
            assertThat(valid).as("rejected %s %s: %s", registrations, roles, e.getMessage()).isFalse();
            return;
          }
          assertThat(valid).as("accepted %s %s", registrations, roles).isTrue();
          assertThat(d.registrations()).hasSameSizeAs(registrations);
          for (int i = 1; i < d.registrations().size(); i++) {
            assertThat(d.registrations().get(i - 1).canonicalModelId())
                .isLessThan(d.registrations().get(i).canonicalModelId());
          }
          for (ModelRegistration r : d.registrations()) {
            assertThat(r.aliases()).doesNotContain(r.canonicalModelId()).isSorted().doesNotHaveDuplicates();
          }
          assertThat(d.poolRoles()).isSorted().containsExactlyInAnyOrderElementsOf(roles);
          try {
            assertThat(CatalogValidator.validate(DescriptorWire.of(d))).isEqualTo(d);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
  }

  @Test
  void badRoleInOneDescriptorExcludesOnlyThatOne() {
    qt().withExamples(200).forAll(integers().between(1, 8), integers().between(0, 7), integers().between(6, 1000))
        .checkAssert((count, badIndex, badRole) -> {
          int bad = badIndex % count;
          List<DescriptorWire> wires = new ArrayList<>();
          for (int i = 0; i < count; i++) {
            DescriptorWire w = DescriptorWire.of(CatalogFixtures.descriptor(i, 1));
            if (i == bad) {
              w = new DescriptorWire(w.producer(), w.servingEndpoint(), w.registrations(), w.querySemantics(),
                  List.of(2, badRole));
            }
            wires.add(w);
          }
          CatalogValidation v = CatalogValidator.validateAll(new ArrayList<>(wires));
          assertThat(v.usable()).hasSize(count - 1);
          assertThat(v.excluded()).singleElement().satisfies(e -> {
            assertThat(e.index()).isEqualTo(bad);
            assertThat(e.quarantined()).isTrue();
            assertThat(e.poolId()).isEqualTo(pool(bad));
          });
        });
  }
}
