package dev.kvrelay.engine.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.membership.ConflictScope;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** QuickTheories invariants of the evaluator, the publisher and the validator. */
class TopologyProperties {

  @Test
  void evaluatorInvariants() {
    qt().withExamples(400).forAll(longs().all()).checkAssert(seed -> {
      RandomTopology t = new RandomTopology(new Random(seed));
      List<TopologyEntry> entries = Evaluator.evaluate(t.endpoints, t.availability, t.links);

      // Order independence.
      List<EndpointTopology> shuffled = new ArrayList<>(t.endpoints);
      Collections.shuffle(shuffled, new Random(~seed));
      List<PoolLink> links = new ArrayList<>(t.links);
      Collections.shuffle(links, new Random(seed * 31));
      assertThat(Evaluator.evaluate(shuffled, t.availability, links)).isEqualTo(entries);

      // Grouping: exactly the participating endpoints, once per (namespace, base model), strictly sorted.
      Set<String> expected = new HashSet<>();
      for (EndpointTopology e : t.endpoints) {
        if (!e.conflicts().contains(ConflictScope.SERVING_TOPOLOGY)) {
          for (String m : e.baseModels()) {
            expected.add(e.endpoint().namespace() + "|" + m + "|" + e.endpoint().path());
          }
        }
      }
      Set<String> actual = new HashSet<>();
      for (int i = 0; i < entries.size(); i++) {
        TopologyEntry e = entries.get(i);
        if (i > 0) {
          TopologyEntry prev = entries.get(i - 1);
          int c = WireText.compareCodePoints(prev.namespace(), e.namespace());
          assertThat(c < 0 || (c == 0 && WireText.compareCodePoints(prev.canonicalModelId(), e.canonicalModelId()) < 0))
              .as("entries strictly sorted").isTrue();
        }
        for (int j = 0; j < e.members().size(); j++) {
          TopologyMember m = e.members().get(j);
          actual.add(e.namespace() + "|" + e.canonicalModelId() + "|" + m.endpoint().path());
          if (j > 0) {
            assertThat(WireText.compareCodePoints(e.members().get(j - 1).endpoint().path(), m.endpoint().path()))
                .isNegative();
          }
        }
        checkEntry(e, t.availability);
        try {
          assertThat(TopologyEntryValidator.validate(WireForm.of(e))).isEqualTo(e);
        } catch (WireValidationException ex) {
          throw new AssertionError("producer entry fails the consumer rules: " + ex.getMessage(), ex);
        }
      }
      assertThat(actual).isEqualTo(expected);
    });
  }

  private static void checkEntry(TopologyEntry e, Map<DynamoEndpointId, Set<Long>> availability) {
    boolean unknown = e.members().stream().anyMatch(m -> !availability.containsKey(m.endpoint()));
    assertThat(e.state() == ServingReadinessState.UNKNOWN).isEqualTo(unknown);
    if (unknown) {
      assertThat(e.presentRoles()).isEmpty();
      assertThat(e.missingRoles()).isEmpty();
    }
    if (e.state() == ServingReadinessState.READY) {
      assertThat(e.missingRoles()).isEmpty();
    }
    if (e.legacyFallbackActive()) {
      assertThat(e.missingRoles()).isEmpty();
      assertThat(e.duplicateRoleEndpoints()).isEmpty();
    }
    assertThat(e.duplicateRoleEndpoints()).allMatch(r -> r == WorkerRole.PREFILL || r == WorkerRole.DECODE);
    assertThat(e.presentRoles()).doesNotContain(WorkerRole.LEGACY);
    for (AdapterReadiness a : e.adapters()) {
      if (e.state() != ServingReadinessState.READY) {
        assertThat(a.state()).isEqualTo(e.state());
      }
      if (a.state() == ServingReadinessState.UNKNOWN) {
        assertThat(a.missingRoles()).isEmpty();
      }
      if (a.state() == ServingReadinessState.READY) {
        assertThat(a.missingRoles()).isEmpty();
      }
    }
  }

  /** The publisher against a simple exact model: latest membership per endpoint plus the owning slot. */
  @Test
  void publisherMatchesModel() {
    qt().withExamples(200).forAll(longs().all()).checkAssert(seed -> {
      Random r = new Random(seed);
      TopologyPublisher publisher = new TopologyPublisher();
      Map<DynamoEndpointId, EndpointTopology> memberships = new HashMap<>();
      Map<DynamoEndpointId, Long> owner = new HashMap<>();
      Map<DynamoEndpointId, Set<Long>> live = new HashMap<>();
      List<PoolLink> links = new ArrayList<>();
      boolean stopped = false;
      long expectedRevision = 1;
      List<TopologyEntry> previous = List.of();
      DynamoEndpointId[] ids = {Fixtures.ep("ns", "a"), Fixtures.ep("ns", "b"), Fixtures.ep("ns2", "c")};
      for (int step = 0; step < 40; step++) {
        DynamoEndpointId id = ids[r.nextInt(ids.length)];
        long incarnation = r.nextInt(5);
        TopologySnapshot before = publisher.snapshot();
        WriteOutcome outcome;
        boolean applied;
        switch (r.nextInt(6)) {
          case 0: {
            EndpointTopology e = RandomTopology.endpoint(r, id, 10L * (id.hashCode() & 0xff))
                .withConflicts(Set.of());
            outcome = publisher.putMembership(e);
            applied = !stopped;
            if (applied) {
              memberships.put(id, e);
            }
            break;
          }
          case 1: {
            outcome = publisher.claim(id, incarnation);
            Long current = owner.get(id);
            applied = !stopped && incarnation != 0 && (current == null || incarnation > current);
            if (applied) {
              owner.put(id, incarnation);
              live.remove(id);
            }
            break;
          }
          case 2:
          case 3: {
            Optional<Set<Long>> ids2 = Optional.empty();
            EndpointTopology m = memberships.get(id);
            if (r.nextInt(4) != 0) {
              Set<Long> s = new HashSet<>();
              if (m != null) {
                for (Long w : m.workers().keySet()) {
                  if (r.nextBoolean()) {
                    s.add(w);
                  }
                }
              }
              ids2 = Optional.of(s);
            }
            Long current = owner.get(id);
            long inc = current != null && r.nextInt(3) != 0 ? current : incarnation;
            outcome = publisher.publishAvailability(id, inc, ids2);
            applied = !stopped && inc != 0 && current != null && current == inc;
            if (applied) {
              if (ids2.isPresent()) {
                live.put(id, ids2.get());
              } else {
                live.remove(id);
              }
            }
            break;
          }
          case 4: {
            outcome = publisher.removeEndpoint(id);
            applied = !stopped;
            if (applied) {
              memberships.remove(id);
              owner.remove(id);
              live.remove(id);
            }
            break;
          }
          default: {
            if (r.nextInt(8) == 0) {
              outcome = publisher.stop();
              applied = !stopped;
              stopped = true;
              memberships.clear();
              owner.clear();
              live.clear();
              links.clear();
            } else {
              links.clear();
              links.add(new PoolLink(id, "llama", Fixtures.pool(r.nextInt(2))));
              outcome = publisher.replacePoolLinks(links);
              applied = !stopped;
            }
            break;
          }
        }
        List<TopologyEntry> expected = stopped
            ? List.of() : Evaluator.evaluate(memberships.values(), live, links);
        TopologySnapshot after = publisher.snapshot();
        assertThat(after.entries()).isEqualTo(expected);
        if (!applied) {
          assertThat(after).isSameAs(before);
          assertThat(outcome).isNotIn(WriteOutcome.CHANGED);
        } else {
          boolean changed = !expected.equals(previous);
          assertThat(outcome).isEqualTo(changed ? WriteOutcome.CHANGED : WriteOutcome.UNCHANGED);
          expectedRevision += changed ? 1 : 0;
        }
        assertThat(after.revision()).isEqualTo(expectedRevision);
        previous = expected;
      }
    });
  }

  /** Arbitrary raw entries: either a valid entry that round-trips, or a typed WireValidationException. */
  @Test
  void validatorNeverThrowsUntypedAndRoundTrips() {
    String[] texts = {"ns", "other", "", " ns", "a.b", "b", "llama", "\ud800x"};
    qt().withExamples(2000).forAll(longs().all()).checkAssert(seed -> {
      Random r = new Random(seed);
      List<TopologyEntryValidator.MemberWire> members = new ArrayList<>();
      int n = r.nextInt(4);
      for (int i = 0; i < n; i++) {
        members.add(new TopologyEntryValidator.MemberWire(
            r.nextInt(3) == 0 ? texts[r.nextInt(texts.length)] : "ns",
            texts[r.nextInt(texts.length)], texts[r.nextInt(texts.length)], roles(r, true),
            r.nextBoolean() ? null : Fixtures.pool(r.nextInt(2)).toWire()));
      }
      List<TopologyEntryValidator.AdapterWire> adapters = new ArrayList<>();
      int a = r.nextInt(3);
      for (int i = 0; i < a; i++) {
        adapters.add(new TopologyEntryValidator.AdapterWire(
            texts[r.nextInt(texts.length)], r.nextInt(5) - 1, roles(r, false)));
      }
      TopologyEntryValidator.EntryWire wire = new TopologyEntryValidator.EntryWire(
          r.nextInt(4) == 0 ? texts[r.nextInt(texts.length)] : "ns", texts[r.nextInt(texts.length)],
          r.nextInt(5) - 1, roles(r, false), roles(r, false), r.nextInt(10) == 0 ? null : new ArrayList<>(members),
          roles(r, false), r.nextBoolean(), r.nextBoolean() ? null : new ArrayList<>(adapters));
      TopologyEntry entry;
      try {
        entry = TopologyEntryValidator.validate(wire);
      } catch (WireValidationException expected) {
        return;
      }
      try {
        assertThat(TopologyEntryValidator.validate(WireForm.of(entry))).isEqualTo(entry);
      } catch (WireValidationException ex) {
        throw new AssertionError(ex);
      }
      Set<DynamoEndpointId> endpoints = new HashSet<>();
      for (TopologyMember m : entry.members()) {
        assertThat(m.endpoint().namespace()).isEqualTo(entry.namespace());
        assertThat(endpoints.add(m.endpoint())).isTrue();
      }
      assertThat(EnumSet.of(WorkerRole.PREFILL, WorkerRole.DECODE)).containsAll(entry.duplicateRoleEndpoints());
    });
  }

  private static int[] roles(Random r, boolean nonEmptyMostly) {
    int n = r.nextInt(nonEmptyMostly ? 3 : 3) + (nonEmptyMostly && r.nextInt(4) != 0 ? 1 : 0);
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = r.nextInt(10) == 0 ? r.nextInt(9) - 2 : 1 + r.nextInt(5);
    }
    return out;
  }
}
