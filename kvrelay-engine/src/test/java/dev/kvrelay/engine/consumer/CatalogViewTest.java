package dev.kvrelay.engine.consumer;

import static dev.kvrelay.engine.consumer.ReplicaFixture.FORMAT;
import static dev.kvrelay.engine.consumer.ReplicaFixture.PRODUCER_A;
import static dev.kvrelay.engine.consumer.ReplicaFixture.PRODUCER_B;
import static dev.kvrelay.engine.consumer.ReplicaFixture.RELAY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.DescriptorWire;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** wan-grpc.md §7.2 envelope and §7.3 catalog rules, one test per rule. */
class CatalogViewTest {

  private final CatalogView view = new CatalogView();

  static KvPoolDescriptor valid(ProducerIdentity producer) {
    return new KvPoolDescriptor(producer, new DynamoEndpointId("ns", "backend", "generate"),
        List.of(new ModelRegistration("m", new ModelTarget.Base("m"), List.of("alias"))),
        new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1), List.of(WorkerRole.DECODE));
  }

  static DescriptorWire descriptor(ProducerIdentity producer) {
    return DescriptorWire.of(valid(producer));
  }

  private static DescriptorWire withRoles(DescriptorWire d, List<@Nullable Integer> roles) {
    return new DescriptorWire(d.producer(), d.servingEndpoint(), d.registrations(), d.querySemantics(), roles);
  }

  static CatalogUpdate update(long revision, DescriptorWire... pools) {
    return CatalogUpdate.of(RELAY, revision, List.of(pools));
  }

  private static PoolChange change(PoolChange.Kind kind, ProducerIdentity prev, ProducerIdentity cur) {
    ProducerIdentity key = prev != null ? prev : cur;
    return new PoolChange(key.poolId(), kind, prev, cur, "");
  }

  @Test
  void newRevisionReplacesTheCatalogAndReportsAddedPools() {
    var r = view.apply(update(1, descriptor(PRODUCER_A), descriptor(PRODUCER_B)), 5);
    assertThat(r).isEqualTo(new CatalogResult.Applied(1, List.of(
        change(PoolChange.Kind.ADDED, null, PRODUCER_A), change(PoolChange.Kind.ADDED, null, PRODUCER_B))));
    assertThat(view.pools()).containsOnlyKeys(PRODUCER_A.poolId(), PRODUCER_B.poolId());
    assertThat(view.revision()).contains(1L);
    assertThat(view.relay()).isEqualTo(RELAY);
    assertThat(view.lastUpdateUs()).isEqualTo(5);
  }

  @Test
  void unchangedPoolsProduceNoChange() {
    view.apply(update(1, descriptor(PRODUCER_A)), 5);
    var r = view.apply(update(2, descriptor(PRODUCER_A), descriptor(PRODUCER_B)), 6);
    assertThat(r).isEqualTo(new CatalogResult.Applied(2, List.of(change(PoolChange.Kind.ADDED, null, PRODUCER_B))));
  }

  @Test
  void smallerRevisionIsAnErrorAndChangesNothing() {
    view.apply(update(5, descriptor(PRODUCER_A)), 5);
    var r = view.apply(update(4, descriptor(PRODUCER_B)), 6);
    assertThat(r).isInstanceOf(CatalogResult.Rejected.class);
    assertThat(((CatalogResult.Rejected) r).error()).isEqualTo(CatalogError.REVISION_REGRESSED);
    assertThat(view.pools()).containsOnlyKeys(PRODUCER_A.poolId());
    assertThat(view.revision()).contains(5L);
    assertThat(view.lastUpdateUs()).isEqualTo(5);
  }

  @Test
  void revisionsCompareUnsigned() {
    view.apply(update(0x7FFF_FFFF_FFFF_FFFFL, descriptor(PRODUCER_A)), 5);
    assertThat(view.apply(update(0x8000_0000_0000_0000L, descriptor(PRODUCER_A)), 6))
        .isInstanceOf(CatalogResult.Applied.class);
    assertThat(((CatalogResult.Rejected) view.apply(update(1, descriptor(PRODUCER_A)), 7)).error())
        .isEqualTo(CatalogError.REVISION_REGRESSED);
  }

  @Test
  void equalRevisionWithIdenticalSnapshotIsAHeartbeatThatRefreshesFreshness() {
    view.apply(update(3, descriptor(PRODUCER_A), descriptor(PRODUCER_B)), 5);
    var r = view.apply(update(3, descriptor(PRODUCER_B), descriptor(PRODUCER_A)), 9);
    assertThat(r).isEqualTo(new CatalogResult.Heartbeat(3));
    assertThat(view.lastUpdateUs()).isEqualTo(9);
  }

  @Test
  void equalRevisionWithDifferentContentsIsAnErrorAndChangesNothing() {
    view.apply(update(3, descriptor(PRODUCER_A)), 5);
    var r = view.apply(update(3, descriptor(PRODUCER_A), descriptor(PRODUCER_B)), 9);
    assertThat(((CatalogResult.Rejected) r).error()).isEqualTo(CatalogError.REVISION_CONFLICT);
    assertThat(view.pools()).containsOnlyKeys(PRODUCER_A.poolId());
    assertThat(view.lastUpdateUs()).isEqualTo(5);
  }

  @Test
  void newProducerIdentityForAKnownPoolMeansResubscribe() {
    view.apply(update(1, descriptor(PRODUCER_A)), 5);
    ProducerIdentity next = new ProducerIdentity(PRODUCER_A.poolId(), PRODUCER_A.producerIncarnation(),
        PRODUCER_A.layoutGeneration() + 1, FORMAT);
    var r = view.apply(update(2, descriptor(next)), 6);
    assertThat(r).isEqualTo(new CatalogResult.Applied(2, List.of(
        new PoolChange(PRODUCER_A.poolId(), PoolChange.Kind.RESUBSCRIBE, PRODUCER_A, next, ""))));
    assertThat(view.descriptor(PRODUCER_A.poolId()).orElseThrow().producer()).isEqualTo(next);
  }

  @Test
  void metadataChangeIsNotAResubscribe() {
    view.apply(update(1, descriptor(PRODUCER_A)), 5);
    KvPoolDescriptor renamed = new KvPoolDescriptor(PRODUCER_A, new DynamoEndpointId("ns", "other", "generate"),
        List.of(), new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1), List.of(WorkerRole.PREFILL));
    var r = view.apply(update(2, DescriptorWire.of(renamed)), 6);
    assertThat(r).isEqualTo(new CatalogResult.Applied(2, List.of()));
    assertThat(view.descriptor(PRODUCER_A.poolId())).contains(renamed);
  }

  @Test
  void poolMissingFromTheSnapshotIsDropped() {
    view.apply(update(1, descriptor(PRODUCER_A), descriptor(PRODUCER_B)), 5);
    var r = view.apply(update(2, descriptor(PRODUCER_B)), 6);
    assertThat(r).isEqualTo(new CatalogResult.Applied(2, List.of(change(PoolChange.Kind.DROPPED, PRODUCER_A, null))));
    assertThat(view.pools()).containsOnlyKeys(PRODUCER_B.poolId());
  }

  @Test
  void invalidDescriptorIsQuarantinedOnItsOwnWithItsOldState() {
    view.apply(update(1, descriptor(PRODUCER_A), descriptor(PRODUCER_B)), 5);
    DescriptorWire noRoles = withRoles(descriptor(PRODUCER_A), List.of());
    var r = (CatalogResult.Applied) view.apply(update(2, noRoles, descriptor(PRODUCER_B)), 6);
    assertThat(r.changes()).hasSize(1);
    assertThat(r.changes().get(0).kind()).isEqualTo(PoolChange.Kind.QUARANTINED);
    assertThat(r.changes().get(0).previous()).isEqualTo(PRODUCER_A);
    assertThat(r.changes().get(0).current()).isNull();
    assertThat(r.changes().get(0).detail()).contains("MALFORMED", "pool_roles");
    assertThat(view.pools()).containsOnlyKeys(PRODUCER_B.poolId());
  }

  @Test
  void descriptorWithoutQuerySemanticsIsQuarantined() {
    DescriptorWire good = descriptor(PRODUCER_A);
    DescriptorWire d = new DescriptorWire(good.producer(), good.servingEndpoint(), good.registrations(), null,
        good.poolRoles());
    var r = (CatalogResult.Applied) view.apply(update(1, d), 6);
    assertThat(r.changes()).extracting(PoolChange::kind).containsExactly(PoolChange.Kind.QUARANTINED);
    assertThat(r.changes().get(0).detail()).contains("query_semantics");
    assertThat(view.pools()).isEmpty();
  }

  /** Decision (same as CatalogValidator): a pool id listed twice excludes every copy; the view reports it once. */
  @Test
  void poolListedTwiceIsAmbiguousAndQuarantined() {
    ProducerIdentity other = new ProducerIdentity(PRODUCER_A.poolId(), 99, 1, FORMAT);
    var r = (CatalogResult.Applied) view.apply(update(1, descriptor(PRODUCER_A), descriptor(other)), 6);
    assertThat(r.changes()).extracting(PoolChange::kind).containsExactly(PoolChange.Kind.QUARANTINED);
    assertThat(r.changes().get(0).detail()).contains("listed more than once");
    assertThat(view.pools()).isEmpty();
  }

  @Test
  void envelopeMarkerIsCheckedBeforeVersion() {
    var r = view.apply(new CatalogUpdate(7, 0x31525648L, RELAY, 1, List.of(descriptor(PRODUCER_A))), 5);
    assertThat(((CatalogResult.Rejected) r).error()).isEqualTo(CatalogError.CONTRACT_MISMATCH);
    var v = view.apply(new CatalogUpdate(7, 0x4B565231L, RELAY, 1, List.of(descriptor(PRODUCER_A))), 5);
    assertThat(((CatalogResult.Rejected) v).error()).isEqualTo(CatalogError.PROTOCOL_VERSION_MISMATCH);
    var m = view.apply(new CatalogUpdate(1, 0x4B565231L, null, 1, List.of(descriptor(PRODUCER_A))), 5);
    assertThat(((CatalogResult.Rejected) m).error()).isEqualTo(CatalogError.RELAY_MISSING);
    assertThat(view.revision()).isEmpty();
    assertThat(view.pools()).isEmpty();
  }

  @Test
  void relayChangeIsRejectedUntilResetThenEverythingIsDropped() {
    view.apply(update(1, descriptor(PRODUCER_A)), 5);
    CatalogUpdate fromRestarted = new CatalogUpdate(1, 0x4B565231L, new RelayIdentity(0x1111L, 0x9999L), 1,
        List.of(descriptor(PRODUCER_B)));
    assertThat(((CatalogResult.Rejected) view.apply(fromRestarted, 6)).error()).isEqualTo(CatalogError.RELAY_CHANGED);
    assertThat(view.pools()).containsOnlyKeys(PRODUCER_A.poolId());
    assertThat(view.reset()).containsExactly(change(PoolChange.Kind.DROPPED, PRODUCER_A, null));
    assertThat(view.apply(fromRestarted, 7)).isEqualTo(new CatalogResult.Applied(1,
        List.of(change(PoolChange.Kind.ADDED, null, PRODUCER_B))));
  }

  @Test
  void unsupportedDescriptorIsQuarantinedWithItsReason() {
    view.apply(update(1, descriptor(PRODUCER_A)), 5);
    var r = (CatalogResult.Applied) view.apply(update(2, withRoles(descriptor(PRODUCER_A), List.of(2, 9))), 6);
    assertThat(r.changes()).containsExactly(new PoolChange(PRODUCER_A.poolId(), PoolChange.Kind.QUARANTINED,
        PRODUCER_A, null, r.changes().get(0).detail()));
    assertThat(r.changes().get(0).detail()).startsWith("UNSUPPORTED pool_roles");
    assertThat(view.pools()).isEmpty();
  }

  @Test
  void descriptorWithoutReadablePoolIdIsDroppedAndItsOldPoolWithIt() {
    view.apply(update(1, descriptor(PRODUCER_A), descriptor(PRODUCER_B)), 5);
    DescriptorWire good = descriptor(PRODUCER_A);
    DescriptorWire noProducer = new DescriptorWire(null, good.servingEndpoint(), good.registrations(),
        good.querySemantics(), good.poolRoles());
    var r = view.apply(update(2, noProducer, descriptor(PRODUCER_B)), 6);
    assertThat(r).isEqualTo(new CatalogResult.Applied(2, List.of(change(PoolChange.Kind.DROPPED, PRODUCER_A, null))));
    assertThat(view.pools()).containsOnlyKeys(PRODUCER_B.poolId());
  }

  @Test
  void poolListedTwiceWithOneBrokenCopyIsReportedOnceWithBothReasons() {
    view.apply(update(1, descriptor(PRODUCER_A)), 5);
    var r = (CatalogResult.Applied) view.apply(
        update(2, withRoles(descriptor(PRODUCER_A), List.of(0)), descriptor(PRODUCER_A), descriptor(PRODUCER_B)), 6);
    assertThat(r.changes()).extracting(PoolChange::kind)
        .containsExactly(PoolChange.Kind.QUARANTINED, PoolChange.Kind.ADDED);
    assertThat(r.changes().get(0).previous()).isEqualTo(PRODUCER_A);
    assertThat(r.changes().get(0).detail()).contains("pool_roles", "listed more than once");
    assertThat(view.pools()).containsOnlyKeys(PRODUCER_B.poolId());
  }

  @Test
  void heartbeatComparesDigestBytesNotArrayInstances() {
    DescriptorWire first = descriptor(PRODUCER_A);
    view.apply(update(3, first), 5);
    var digest = first.producer().poolId().indexerDomain().cacheSemantics();
    byte[] copy = digest.digest().clone();
    DescriptorWire decodedAgain = withDigest(first, copy);
    assertThat(view.apply(update(3, decodedAgain), 6)).isEqualTo(new CatalogResult.Heartbeat(3));
    byte[] changed = digest.digest().clone();
    changed[15] ^= 1;
    assertThat(((CatalogResult.Rejected) view.apply(update(3, withDigest(first, changed)), 7)).error())
        .isEqualTo(CatalogError.REVISION_CONFLICT);
    assertThat(view.lastUpdateUs()).isEqualTo(6);
  }

  @Test
  void heartbeatCountsRepeatedDescriptors() {
    view.apply(update(3, descriptor(PRODUCER_A), descriptor(PRODUCER_A)), 5);
    assertThat(((CatalogResult.Rejected) view.apply(update(3, descriptor(PRODUCER_A)), 6)).error())
        .isEqualTo(CatalogError.REVISION_CONFLICT);
    assertThat(view.apply(update(3, descriptor(PRODUCER_A), descriptor(PRODUCER_A)), 7))
        .isEqualTo(new CatalogResult.Heartbeat(3));
  }

  @Test
  void inProcessDescriptorsAreAppliedLikeTheirWireShape() {
    CatalogUpdate u = CatalogUpdate.ofDescriptors(RELAY, 1, List.of(valid(PRODUCER_A)));
    assertThat(view.apply(u, 5)).isEqualTo(new CatalogResult.Applied(1, List.of(
        change(PoolChange.Kind.ADDED, null, PRODUCER_A))));
    assertThat(view.descriptor(PRODUCER_A.poolId())).contains(valid(PRODUCER_A));
  }

  private static DescriptorWire withDigest(DescriptorWire d, byte[] cacheDigest) {
    ProducerIdentity.Wire p = d.producer();
    KvPoolId.Wire pool = p.poolId();
    IndexerDomainId.Wire domain = pool.indexerDomain();
    DigestIdentity.Wire cache = new DigestIdentity.Wire(cacheDigest, domain.cacheSemantics().source());
    ProducerIdentity.Wire producer = new ProducerIdentity.Wire(
        new KvPoolId.Wire(pool.identityVersion(), new IndexerDomainId.Wire(cache, domain.routingScope()), pool.dcId()),
        p.producerIncarnation(), p.layoutGeneration(), p.ckfFormat());
    return new DescriptorWire(producer, d.servingEndpoint(), d.registrations(), d.querySemantics(), d.poolRoles());
  }
}
