package dev.kvrelay.engine.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.WireValidationException.Kind;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.membership.WorkerTopology;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** wan-grpc.md §1.8 TopologyEntry rules and conformance C28 / C32. */
class TopologyEntryValidatorTest {
  private static final int UNKNOWN = 0;
  private static final int READY = 2;

  private static TopologyEntryValidator.MemberWire member(String ns, String component, String endpoint, int... roles) {
    return new TopologyEntryValidator.MemberWire(ns, component, endpoint, roles, null);
  }

  private static TopologyEntryValidator.EntryWire entry(
      int state, List<TopologyEntryValidator.@Nullable MemberWire> members, int[] duplicates,
      List<TopologyEntryValidator.@Nullable AdapterWire> adapters) {
    return new TopologyEntryValidator.EntryWire(
        "ns", "llama", state, new int[] {4}, new int[0], members, duplicates, false, adapters);
  }

  private static TopologyEntryValidator.EntryWire withMembers(TopologyEntryValidator.MemberWire... members) {
    return entry(READY, new ArrayList<>(List.of(members)), new int[0], List.of());
  }

  private static void rejects(TopologyEntryValidator.EntryWire wire, Kind kind, String fieldPart) {
    assertThatThrownBy(() -> TopologyEntryValidator.validate(wire))
        .isInstanceOfSatisfying(WireValidationException.class, ex -> {
          assertThat(ex.kind()).isEqualTo(kind);
          assertThat(ex.field()).contains(fieldPart);
        });
  }

  @Test
  void validEntryIsAccepted() throws WireValidationException {
    TopologyEntry e = TopologyEntryValidator.validate(withMembers(member("ns", "backend", "generate", 4)));
    assertThat(e.members()).hasSize(1);
    assertThat(e.presentRoles()).containsExactly(Fixtures.AGG);
  }

  @Test
  void unknownStateIsUnsupported() {
    rejects(entry(99, new ArrayList<>(List.of(member("ns", "c", "e", 4))), new int[0], List.of()),
        Kind.UNSUPPORTED, "state");
  }

  @Test
  void unknownStateWithoutMembersIsMalformed() {
    rejects(entry(UNKNOWN, List.of(), new int[0], List.of()), Kind.MALFORMED, "members");
  }

  @Test
  void nullMembersIsMalformed() {
    rejects(entry(READY, null, new int[0], List.of()), Kind.MALFORMED, "members");
  }

  @Test
  void duplicateMemberIsMalformed() {
    rejects(withMembers(member("ns", "c", "e", 4), member("ns", "c", "e", 1)), Kind.MALFORMED, "members[1]");
  }

  @Test
  void dottedComponentsAreKeptDistinct() throws WireValidationException {
    TopologyEntry e = TopologyEntryValidator.validate(
        withMembers(member("ns", "a.b", "c", 4), member("ns", "a", "b.c", 4)));
    assertThat(e.members()).hasSize(2);
  }

  @Test
  void unspecifiedMemberRoleIsMalformed() {
    rejects(withMembers(member("ns", "c", "e", 0)), Kind.MALFORMED, "roles");
  }

  @Test
  void unknownMemberRoleIsUnsupported() {
    rejects(withMembers(member("ns", "c", "e", 99)), Kind.UNSUPPORTED, "roles");
    rejects(withMembers(member("ns", "c", "e", -1)), Kind.UNSUPPORTED, "roles");
  }

  @Test
  void emptyMemberRolesAreMalformed() {
    rejects(withMembers(member("ns", "c", "e")), Kind.MALFORMED, "roles");
  }

  @Test
  void repeatedMemberRoleIsMalformed() {
    rejects(withMembers(member("ns", "c", "e", 2, 2)), Kind.MALFORMED, "roles");
  }

  @Test
  void wrongMemberNamespaceIsMalformed() {
    rejects(withMembers(member("other", "c", "e", 4)), Kind.MALFORMED, "namespace");
  }

  @Test
  void blankOrPaddedTextIsMalformed() {
    rejects(withMembers(member("ns", " c", "e", 4)), Kind.MALFORMED, "component");
    rejects(new TopologyEntryValidator.EntryWire("", "llama", READY, null, null,
        new ArrayList<>(List.of(member("ns", "c", "e", 4))), null, false, null), Kind.MALFORMED, "namespace");
    rejects(new TopologyEntryValidator.EntryWire("ns", "llama\u3000", READY, null, null,
        new ArrayList<>(List.of(member("ns", "c", "e", 4))), null, false, null), Kind.MALFORMED, "canonical_model_id");
  }

  @Test
  void duplicateRoleEndpointsAdmitOnlyPrefillAndDecode() {
    for (int role : new int[] {3, 4, 5}) {
      rejects(entry(READY, new ArrayList<>(List.of(member("ns", "c", "e", 4))), new int[] {role}, List.of()),
          Kind.MALFORMED, "duplicate_role_endpoints");
    }
    rejects(entry(READY, new ArrayList<>(List.of(member("ns", "c", "e", 4))), new int[] {2, 2}, List.of()),
        Kind.MALFORMED, "duplicate_role_endpoints");
    rejects(entry(READY, new ArrayList<>(List.of(member("ns", "c", "e", 4))), new int[] {0}, List.of()),
        Kind.MALFORMED, "duplicate_role_endpoints");
  }

  @Test
  void duplicatePrefillAndDecodeAreAccepted() throws WireValidationException {
    TopologyEntry e = TopologyEntryValidator.validate(
        entry(READY, new ArrayList<>(List.of(member("ns", "c", "e", 4))), new int[] {2, 1}, List.of()));
    assertThat(e.duplicateRoleEndpoints()).containsExactly(Fixtures.P, Fixtures.D);
  }

  @Test
  void duplicateAdapterIsMalformed() {
    List<TopologyEntryValidator.@Nullable AdapterWire> adapters = new ArrayList<>(List.of(
        new TopologyEntryValidator.AdapterWire("sql", READY, new int[0]),
        new TopologyEntryValidator.AdapterWire("sql", 1, new int[] {1})));
    rejects(entry(READY, new ArrayList<>(List.of(member("ns", "c", "e", 4))), new int[0], adapters),
        Kind.MALFORMED, "adapters[1]");
  }

  @Test
  void unknownAdapterStateIsUnsupported() {
    List<TopologyEntryValidator.@Nullable AdapterWire> adapters =
        new ArrayList<>(List.of(new TopologyEntryValidator.AdapterWire("sql", 7, new int[0])));
    rejects(entry(READY, new ArrayList<>(List.of(member("ns", "c", "e", 4))), new int[0], adapters),
        Kind.UNSUPPORTED, "state");
  }

  @Test
  void missingEntriesAndElementsAreMalformed() {
    assertThatThrownBy(() -> TopologyEntryValidator.validate(null)).isInstanceOf(WireValidationException.class);
    List<TopologyEntryValidator.@Nullable MemberWire> members = new ArrayList<>();
    members.add(null);
    rejects(entry(READY, members, new int[0], List.of()), Kind.MALFORMED, "members[0]");
    List<TopologyEntryValidator.@Nullable AdapterWire> adapters = new ArrayList<>();
    adapters.add(null);
    rejects(entry(READY, new ArrayList<>(List.of(member("ns", "c", "e", 4))), new int[0], adapters),
        Kind.MALFORMED, "adapters[0]");
  }

  @Test
  void memberPoolIdIsValidated() {
    KvPoolId.Wire good = Fixtures.pool(1).toWire();
    KvPoolId.Wire zeroVersion = new KvPoolId.Wire(0, good.indexerDomain(), good.dcId());
    KvPoolId.Wire futureVersion = new KvPoolId.Wire(2, good.indexerDomain(), good.dcId());
    rejects(withMembers(new TopologyEntryValidator.MemberWire("ns", "c", "e", new int[] {4}, zeroVersion)),
        Kind.MALFORMED, "identity_version");
    rejects(withMembers(new TopologyEntryValidator.MemberWire("ns", "c", "e", new int[] {4}, futureVersion)),
        Kind.UNSUPPORTED, "identity_version");
  }

  @Test
  void evaluatorOutputRoundTrips() throws WireValidationException {
    for (TopologyEntry e : Evaluator.evaluate(
        List.of(Fixtures.endpoint(Fixtures.ep("ns", "pd"), "llama", 1, WorkerTopology.of(Fixtures.AGG))
            .withAdapters(Fixtures.adapter("sql", "llama", "sql-lora", 1L))),
        Fixtures.live(Fixtures.ep("ns", "pd"), java.util.Set.of(1L)),
        List.of(new PoolLink(Fixtures.ep("ns", "pd"), "llama", Fixtures.pool(4))))) {
      assertThat(TopologyEntryValidator.validate(WireForm.of(e))).isEqualTo(e);
    }
  }
}
