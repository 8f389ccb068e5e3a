package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.ModelKey;
import dev.kvrelay.engine.wan.TopologyEntry;
import dev.kvrelay.engine.wan.TopologyMember;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReadinessViewTest {

  static TopologyEntry entry(String model, ServingReadinessState state) {
    return new TopologyEntry("prod", model, state, List.of(WorkerRole.DECODE), List.of(),
        List.of(new TopologyMember(new DynamoEndpointId("prod", "backend", "generate"), List.of(WorkerRole.DECODE),
            Optional.empty())),
        List.of(), false, List.of(new AdapterReadiness(model + "-lora", state, List.of())));
  }

  static TopologyEntryValidator.EntryWire wire(String model, int state, int role) {
    List<TopologyEntryValidator.MemberWire> members = new ArrayList<>();
    members.add(new TopologyEntryValidator.MemberWire("prod", "backend", "generate", new int[] {role}, null));
    return new TopologyEntryValidator.EntryWire("prod", model, state, new int[] {role}, new int[0],
        new ArrayList<>(members), new int[0], false, new ArrayList<>());
  }

  @Test
  void heartbeatSameRevisionSameEntriesRefreshesFreshnessOnly() throws Exception {
    ReadinessView view = new ReadinessView();
    TopologySnapshot s = new TopologySnapshot(3, List.of(entry("llama", ServingReadinessState.READY)));
    assertThat(view.apply(s, 100)).isEqualTo(ReadinessView.Outcome.REPLACED);
    ReadinessSnapshot first = view.snapshot();
    assertThat(view.apply(new TopologySnapshot(3, List.of(entry("llama", ServingReadinessState.READY))), 250))
        .isEqualTo(ReadinessView.Outcome.HEARTBEAT);
    assertThat(view.snapshot().receivedUs()).isEqualTo(250);
    assertThat(view.snapshot().entries()).isEqualTo(first.entries());
    assertThat(view.snapshot().isReady("prod", "llama")).isTrue();
    assertThat(view.snapshot().adapters("prod", "llama")).extracting(AdapterReadiness::canonicalModelId)
        .containsExactly("llama-lora");
  }

  @Test
  void sameRevisionWithOtherEntriesIsAConflictAndChangesNothing() throws Exception {
    ReadinessView view = new ReadinessView();
    view.apply(new TopologySnapshot(3, List.of(entry("llama", ServingReadinessState.READY))), 100);
    assertThatThrownBy(() -> view.apply(
        new TopologySnapshot(3, List.of(entry("llama", ServingReadinessState.UNAVAILABLE))), 200))
        .isInstanceOfSatisfying(StreamOrderException.class,
            e -> assertThat(e.reason()).isEqualTo(StreamOrderException.Reason.REVISION_CONFLICT));
    assertThat(view.snapshot().receivedUs()).isEqualTo(100);
    assertThat(view.snapshot().state("prod", "llama")).contains(ServingReadinessState.READY);
  }

  @Test
  void smallerRevisionIsATypedErrorAndChangesNothing() throws Exception {
    ReadinessView view = new ReadinessView();
    view.apply(new TopologySnapshot(5, List.of(entry("llama", ServingReadinessState.READY))), 100);
    assertThatThrownBy(() -> view.apply(new TopologySnapshot(4, List.of()), 200))
        .isInstanceOfSatisfying(StreamOrderException.class,
            e -> assertThat(e.reason()).isEqualTo(StreamOrderException.Reason.REVISION_REGRESSED));
    assertThat(view.snapshot().revision()).isEqualTo(5);
    assertThat(view.snapshot().isReady("prod", "llama")).isTrue();
  }

  @Test
  void newRevisionReplacesTheWholeView() throws Exception {
    ReadinessView view = new ReadinessView();
    view.apply(new TopologySnapshot(1, List.of(entry("a", ServingReadinessState.READY),
        entry("b", ServingReadinessState.READY))), 100);
    view.apply(new TopologySnapshot(2, List.of(entry("c", ServingReadinessState.UNAVAILABLE))), 200);
    ReadinessSnapshot s = view.snapshot();
    assertThat(s.revision()).isEqualTo(2);
    assertThat(s.entries().keySet()).containsExactly(new ModelKey("prod", "c"));
    assertThat(s.state("prod", "a")).isEmpty();
    assertThat(s.state("prod", "c")).contains(ServingReadinessState.UNAVAILABLE);
  }

  @Test
  void resetAfterReconnectAcceptsTheFirstSnapshotWhateverItsRevision() throws Exception {
    ReadinessView view = new ReadinessView();
    view.apply(new TopologySnapshot(9, List.of(entry("a", ServingReadinessState.READY))), 100);
    view.reset();
    assertThat(view.snapshot().hasRevision()).isFalse();
    assertThat(view.snapshot().isReady("prod", "a")).isFalse();
    assertThat(view.apply(new TopologySnapshot(1, List.of(entry("b", ServingReadinessState.READY))), 200))
        .isEqualTo(ReadinessView.Outcome.REPLACED);
    assertThat(view.snapshot().revision()).isEqualTo(1);
  }

  @Test
  void unknownStateOrRoleQuarantinesTheEntryNeverReadAsReady() throws Exception {
    ReadinessView view = new ReadinessView();
    int ready = ServingReadinessState.READY.wireValue();
    int decode = WorkerRole.DECODE.wireValue();
    List<TopologyEntryValidator.EntryWire> entries = new ArrayList<>();
    entries.add(wire("good", ready, decode));
    entries.add(wire("newstate", 77, decode));
    entries.add(wire("newrole", ready, 99));
    entries.add(wire(" bad key", ready, decode)); // key unreadable: dropped
    view.applyWire(4, new ArrayList<>(entries), 100);
    ReadinessSnapshot s = view.snapshot();
    assertThat(s.isReady("prod", "good")).isTrue();
    assertThat(s.isQuarantined("prod", "newstate")).isTrue();
    assertThat(s.state("prod", "newstate")).isEmpty();
    assertThat(s.isReady("prod", "newstate")).isFalse();
    assertThat(s.isQuarantined("prod", "newrole")).isTrue();
    assertThat(s.isReady("prod", "newrole")).isFalse();
    assertThat(s.quarantined().get(new ModelKey("prod", "newstate"))).contains("UNSUPPORTED");
    assertThat(view.droppedTotal()).isEqualTo(1);
    // The same wire contents again is a heartbeat.
    assertThat(view.applyWire(4, new ArrayList<>(entries), 200)).isEqualTo(ReadinessView.Outcome.HEARTBEAT);
  }

  @Test
  void aKeyListedTwiceIsQuarantinedFailClosed() throws Exception {
    ReadinessView view = new ReadinessView();
    view.apply(new TopologySnapshot(1, List.of(entry("a", ServingReadinessState.READY),
        entry("a", ServingReadinessState.READY))), 100);
    assertThat(view.snapshot().isReady("prod", "a")).isFalse();
    assertThat(view.snapshot().isQuarantined("prod", "a")).isTrue();
  }
}
