package dev.kvrelay.engine.topology;

import static dev.kvrelay.engine.topology.Fixtures.AGG;
import static dev.kvrelay.engine.topology.Fixtures.endpoint;
import static dev.kvrelay.engine.topology.Fixtures.ep;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.engine.membership.WorkerTopology;
import dev.kvrelay.engine.wan.AdapterReadiness;
import dev.kvrelay.engine.wan.TopologySnapshot;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TopologyPublisherTest {
  private static final DynamoEndpointId A = ep("ns", "agg");
  private static final EndpointTopology MEMBERSHIP = endpoint(A, "llama", 1, WorkerTopology.of(AGG));

  private static ServingReadinessState state(TopologyPublisher p) {
    return p.snapshot().entries().get(0).state();
  }

  @Test
  void revisionStartsAtOneWithNoEntries() {
    TopologyPublisher p = new TopologyPublisher();
    assertThat(p.snapshot()).isEqualTo(new TopologySnapshot(1, List.of()));
  }

  @Test
  void identicalAvailabilityWritesDoNotBumpRevision() {
    TopologyPublisher p = new TopologyPublisher();
    assertThat(p.putMembership(MEMBERSHIP)).isEqualTo(WriteOutcome.CHANGED);
    assertThat(p.claim(A, 1)).isEqualTo(WriteOutcome.UNCHANGED);
    assertThat(p.publishAvailability(A, 1, Optional.of(Set.of(1L)))).isEqualTo(WriteOutcome.CHANGED);
    assertThat(p.snapshot().revision()).isEqualTo(3);
    assertThat(p.publishAvailability(A, 1, Optional.of(Set.of(1L)))).isEqualTo(WriteOutcome.UNCHANGED);
    // A different live set with the same derived entry (worker 9 is not a member) does not bump either.
    assertThat(p.publishAvailability(A, 1, Optional.of(Set.of(1L, 9L)))).isEqualTo(WriteOutcome.UNCHANGED);
    assertThat(p.snapshot().revision()).isEqualTo(3);
    assertThat(state(p)).isEqualTo(ServingReadinessState.READY);
  }

  @Test
  void staleSlotIncarnationIsDroppedWithoutStateChange() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    p.claim(A, 4);
    p.publishAvailability(A, 4, Optional.of(Set.of(1L)));
    p.claim(A, 5);
    TopologySnapshot before = p.snapshot();
    assertThat(state(p)).isEqualTo(ServingReadinessState.UNKNOWN);
    assertThat(p.publishAvailability(A, 4, Optional.of(Set.of(1L)))).isEqualTo(WriteOutcome.STALE_INCARNATION);
    assertThat(p.claim(A, 3)).isEqualTo(WriteOutcome.STALE_INCARNATION);
    assertThat(p.snapshot()).isSameAs(before);
    assertThat(p.publishAvailability(A, 5, Optional.of(Set.of(1L)))).isEqualTo(WriteOutcome.CHANGED);
    assertThat(state(p)).isEqualTo(ServingReadinessState.READY);
  }

  @Test
  void newClaimClearsPreviousAvailability() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    p.claim(A, 1);
    p.publishAvailability(A, 1, Optional.of(Set.of(1L)));
    assertThat(state(p)).isEqualTo(ServingReadinessState.READY);
    assertThat(p.claim(A, 2)).isEqualTo(WriteOutcome.CHANGED);
    assertThat(state(p)).isEqualTo(ServingReadinessState.UNKNOWN);
  }

  @Test
  void membershipUpdateKeepsAvailability() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    p.claim(A, 1);
    p.publishAvailability(A, 1, Optional.of(Set.of(1L)));
    p.putMembership(MEMBERSHIP.withAdapters(Fixtures.adapter("llama-sql", "llama", "sql", 1L)));
    assertThat(state(p)).isEqualTo(ServingReadinessState.READY);
    assertThat(p.snapshot().entries().get(0).adapters()).extracting(AdapterReadiness::state)
        .containsExactly(ServingReadinessState.READY);
  }

  @Test
  void availabilityLossReturnsToUnknown() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    p.claim(A, 1);
    p.publishAvailability(A, 1, Optional.of(Set.of(1L)));
    assertThat(p.publishAvailability(A, 1, Optional.empty())).isEqualTo(WriteOutcome.CHANGED);
    assertThat(state(p)).isEqualTo(ServingReadinessState.UNKNOWN);
  }

  @Test
  void unclaimedAndZeroIncarnationWritesAreTypedAndChangeNothing() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    TopologySnapshot before = p.snapshot();
    assertThat(p.publishAvailability(A, 1, Optional.of(Set.of(1L)))).isEqualTo(WriteOutcome.NOT_CLAIMED);
    assertThat(p.claim(A, 0)).isEqualTo(WriteOutcome.INVALID_INCARNATION);
    p.claim(A, 1);
    assertThat(p.publishAvailability(A, 0, Optional.of(Set.of(1L)))).isEqualTo(WriteOutcome.INVALID_INCARNATION);
    assertThat(p.snapshot()).isSameAs(before);
  }

  @Test
  void unsignedIncarnationOrder() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    p.claim(A, Long.MAX_VALUE);
    // 2^63 is newer than 2^63 - 1 as an unsigned 64-bit counter.
    assertThat(p.claim(A, Long.MIN_VALUE)).isEqualTo(WriteOutcome.UNCHANGED);
    assertThat(p.publishAvailability(A, Long.MIN_VALUE, Optional.of(Set.of(1L)))).isEqualTo(WriteOutcome.CHANGED);
    assertThat(p.claim(A, Long.MAX_VALUE)).isEqualTo(WriteOutcome.STALE_INCARNATION);
  }

  @Test
  void removedEndpointDisappearsAndReclaimStartsUnknown() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    p.claim(A, 1);
    p.publishAvailability(A, 1, Optional.of(Set.of(1L)));
    assertThat(p.removeEndpoint(A)).isEqualTo(WriteOutcome.CHANGED);
    assertThat(p.snapshot().entries()).isEmpty();
    assertThat(p.publishAvailability(A, 1, Optional.of(Set.of(1L)))).isEqualTo(WriteOutcome.NOT_CLAIMED);
    p.putMembership(MEMBERSHIP);
    assertThat(state(p)).isEqualTo(ServingReadinessState.UNKNOWN);
  }

  @Test
  void hostStopPublishesEmptyTopologyAndDropsLaterWrites() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    p.claim(A, 1);
    long revision = p.snapshot().revision();
    assertThat(p.stop()).isEqualTo(WriteOutcome.CHANGED);
    assertThat(p.snapshot()).isEqualTo(new TopologySnapshot(revision + 1, List.of()));
    assertThat(p.putMembership(MEMBERSHIP)).isEqualTo(WriteOutcome.STOPPED);
    assertThat(p.claim(A, 2)).isEqualTo(WriteOutcome.STOPPED);
    assertThat(p.stop()).isEqualTo(WriteOutcome.STOPPED);
    assertThat(p.snapshot().entries()).isEmpty();
  }

  @Test
  void poolLinksReplaceAndBumpOnlyOnChange() {
    TopologyPublisher p = new TopologyPublisher();
    p.putMembership(MEMBERSHIP);
    List<PoolLink> links = List.of(new PoolLink(A, "llama", Fixtures.pool(2)));
    assertThat(p.replacePoolLinks(links)).isEqualTo(WriteOutcome.CHANGED);
    assertThat(p.replacePoolLinks(links)).isEqualTo(WriteOutcome.UNCHANGED);
    assertThat(p.snapshot().entries().get(0).members().get(0).poolId()).contains(Fixtures.pool(2));
  }
}
