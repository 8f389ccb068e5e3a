package dev.kvrelay.engine.membership;

import static dev.kvrelay.engine.membership.Cards.base;
import static dev.kvrelay.engine.membership.Cards.ep;
import static dev.kvrelay.engine.membership.Cards.simple;
import static dev.kvrelay.engine.membership.Cards.source;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.engine.membership.KvSourceStatus.AmbiguityReason;
import dev.kvrelay.engine.membership.MaterializationDecision.BlockReason;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.EventSourceKey;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.KvEventSource;
import dev.kvrelay.spi.discovery.ModelRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvSourceViewTest {
  static final String SERVING = "ns/c/gen";

  static EndpointMembership membership(ModelRecord... cards) {
    return new MembershipProjector(MembershipProjectorTest.DC_A, DiscoveryScope.watchAll())
        .project(List.of(cards)).get(ep(SERVING)).orElseThrow();
  }

  static KvSourceKey key(String endpoint, long worker, long rank) {
    return new KvSourceKey(ep(endpoint), worker, rank);
  }

  static KvSourceStatus ambiguous(AmbiguityReason reason) {
    return new KvSourceStatus.Ambiguous(reason);
  }

  @Test
  void expectedRanksAreStartToStartPlusSize_allMissingWithoutAdvertisements() {
    EndpointMembership m = membership(base(SERVING, 7, simple("llama")
        + ",\"runtime_config\":{\"data_parallel_start_rank\":2,\"data_parallel_size\":3}"));
    KvSourceView v = KvSourceView.of(m, new KvSourceAdvertisements());
    assertThat(v.statuses().keySet()).containsExactly(key(SERVING, 7, 2), key(SERVING, 7, 3), key(SERVING, 7, 4));
    assertThat(v.statuses().values()).containsOnly(KvSourceStatus.Missing.INSTANCE);
    assertThat(v.kvState()).isEqualTo(new KvStateResolution.Resolved(ep(SERVING)));
    assertThat(v.hasActiveSource()).isFalse();
  }

  @Test
  void statusTable_oneAdvertisementWithRecoveryTarget_isActiveRecoverable() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    assertThat(ads.advertise(source(SERVING, 7, 0, 11, true))).isEqualTo(AdvertisementOutcome.ADDED);
    KvSourceView v = KvSourceView.of(membership(base(SERVING, 7, simple("llama"))), ads);
    assertThat(v.statuses()).containsExactly(java.util.Map.entry(key(SERVING, 7, 0),
        new KvSourceStatus.ActiveRecoverable(11)));
    assertThat(v.recoverableSources()).containsExactly(key(SERVING, 7, 0));
  }

  @Test
  void statusTable_oneAdvertisementWithoutRecoveryTarget_isActiveLiveOnly() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 7, 0, 11, false));
    KvSourceView v = KvSourceView.of(membership(base(SERVING, 7, simple("llama"))), ads);
    assertThat(v.statuses().get(key(SERVING, 7, 0))).isEqualTo(new KvSourceStatus.ActiveLiveOnly(11));
    assertThat(v.hasActiveSource()).isTrue();
    assertThat(v.recoverableSources()).isEmpty();
  }

  @Test
  void statusTable_twoPublisherIds_areAmbiguousIncarnations() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 7, 0, 11, true));
    ads.advertise(source(SERVING, 7, 0, 12, true));
    KvSourceView v = KvSourceView.of(membership(base(SERVING, 7, simple("llama"))), ads);
    assertThat(v.statuses().get(key(SERVING, 7, 0))).isEqualTo(ambiguous(AmbiguityReason.INCARNATIONS));
    assertThat(v.hasActiveSource()).isFalse();
    assertThat(ads.withdraw(source(SERVING, 7, 0, 12, true).key())).isEqualTo(AdvertisementOutcome.REMOVED);
    assertThat(ads.statusOf(key(SERVING, 7, 0))).isEqualTo(new KvSourceStatus.ActiveRecoverable(11));
  }

  @Test
  void statusTable_samePublisherDifferentDescriptor_isStickyConflictingDescriptorUntilRemoved() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 7, 0, 11, true));
    assertThat(ads.advertise(source(SERVING, 7, 0, 11, false))).isEqualTo(AdvertisementOutcome.CONFLICTING_DESCRIPTOR);
    assertThat(ads.statusOf(key(SERVING, 7, 0))).isEqualTo(ambiguous(AmbiguityReason.CONFLICTING_DESCRIPTOR));
    // sticky: going back to the first descriptor does not clear it
    ads.advertise(source(SERVING, 7, 0, 11, true));
    assertThat(ads.statusOf(key(SERVING, 7, 0))).isEqualTo(ambiguous(AmbiguityReason.CONFLICTING_DESCRIPTOR));
    ads.withdraw(source(SERVING, 7, 0, 11, true).key());
    assertThat(ads.statusOf(key(SERVING, 7, 0))).isEqualTo(KvSourceStatus.Missing.INSTANCE);
    ads.advertise(source(SERVING, 7, 0, 11, true));
    assertThat(ads.statusOf(key(SERVING, 7, 0))).isEqualTo(new KvSourceStatus.ActiveRecoverable(11));
  }

  @Test
  void statusTable_ambiguousKvStateEndpoint_isEndpointMappingForEveryRank() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 1, 0, 11, true));
    EndpointMembership m = membership(
        base(SERVING, 1, simple("llama")),
        base(SERVING, 2, simple("llama")
            + ",\"runtime_config\":{\"kv_state_endpoint\":{\"namespace\":\"ns\",\"component\":\"kv\",\"name\":\"s\"}}"));
    KvSourceView v = KvSourceView.of(m, ads);
    assertThat(v.kvState()).isInstanceOf(KvStateResolution.Ambiguous.class);
    assertThat(((KvStateResolution.Ambiguous) v.kvState()).candidates()).containsExactly(ep("ns/c/gen"), ep("ns/kv/s"));
    assertThat(v.statuses().keySet()).containsExactly(key(SERVING, 1, 0), key("ns/kv/s", 2, 0));
    assertThat(v.statuses().values()).containsOnly(ambiguous(AmbiguityReason.ENDPOINT_MAPPING));
    assertThat(MaterializationDecision.decide(m, v))
        .isEqualTo(new MaterializationDecision.Blocked(BlockReason.KV_STATE_ENDPOINT_AMBIGUOUS));
  }

  @Test
  void kvStateEndpointOverride_resolvesToTheAdvertisedEndpoint() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source("ns/kv/s", 1, 0, 11, true));
    EndpointMembership m = membership(base(SERVING, 1, simple("llama")
        + ",\"runtime_config\":{\"kv_state_endpoint\":{\"namespace\":\"ns\",\"component\":\"kv\",\"name\":\"s\"}}"));
    KvSourceView v = KvSourceView.of(m, ads);
    assertThat(v.kvState()).isEqualTo(new KvStateResolution.Resolved(ep("ns/kv/s")));
    MaterializationDecision d = MaterializationDecision.decide(m, v);
    assertThat(d).isEqualTo(new MaterializationDecision.Materialize(m.domain(), ep("ns/kv/s")));
  }

  @Test
  void noRuntimeConfigs_resolvesToTheServingEndpoint() {
    KvSourceView v = KvSourceView.of(ep(SERVING), java.util.Map.of(), new KvSourceAdvertisements());
    assertThat(v.kvState()).isEqualTo(new KvStateResolution.Resolved(ep(SERVING)));
    assertThat(v.statuses()).isEmpty();
  }

  @Test
  void materialization_needsAnActiveSource() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    EndpointMembership m = membership(base(SERVING, 1, simple("llama")));
    assertThat(MaterializationDecision.decide(m, KvSourceView.of(m, ads)))
        .isEqualTo(new MaterializationDecision.Blocked(BlockReason.NO_ACTIVE_SOURCE));
    ads.advertise(source(SERVING, 1, 0, 5, false));
    assertThat(MaterializationDecision.decide(m, KvSourceView.of(m, ads)))
        .isEqualTo(new MaterializationDecision.Materialize(m.domain(), ep(SERVING)));
  }

  @Test
  void materialization_notMaterializableMembershipIsBlockedFirst() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 1, 0, 5, true));
    EndpointMembership m = membership(base(SERVING, 1, "\"display_name\":\"llama\",\"kv_cache_block_size\":0"));
    assertThat(MaterializationDecision.decide(m, KvSourceView.of(m, ads)))
        .isEqualTo(new MaterializationDecision.Blocked(BlockReason.NOT_MATERIALIZABLE));
  }

  @Test
  void materialization_staleRuntimeConfigsDeferTheStart() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 1, 0, 5, true));
    EndpointMembership old = membership(base(SERVING, 1, simple("llama")));
    EndpointMembership now = membership(base(SERVING, 1, simple("llama")),
        base(SERVING, 2, simple("llama") + ",\"runtime_config\":{\"data_parallel_size\":2}"));
    KvSourceView stale = KvSourceView.of(old, ads);
    assertThat(stale.isPendingFor(now)).isTrue();
    assertThat(MaterializationDecision.decide(now, stale))
        .isEqualTo(new MaterializationDecision.Blocked(BlockReason.SOURCE_BINDING_PENDING));
  }

  @Test
  void coldResetRule_onlyMissingToActiveIsWarm() {
    KvSourceStatus rec = new KvSourceStatus.ActiveRecoverable(1);
    KvSourceStatus live = new KvSourceStatus.ActiveLiveOnly(1);
    KvSourceStatus amb = ambiguous(AmbiguityReason.INCARNATIONS);
    assertThat(KvSourceStatus.requiresColdReset(KvSourceStatus.Missing.INSTANCE, rec)).isFalse();
    assertThat(KvSourceStatus.requiresColdReset(KvSourceStatus.Missing.INSTANCE, live)).isFalse();
    assertThat(KvSourceStatus.requiresColdReset(rec, rec)).isFalse();
    assertThat(KvSourceStatus.requiresColdReset(rec, KvSourceStatus.Missing.INSTANCE)).isTrue();
    assertThat(KvSourceStatus.requiresColdReset(rec, live)).isTrue();
    assertThat(KvSourceStatus.requiresColdReset(KvSourceStatus.Missing.INSTANCE, amb)).isTrue();
    assertThat(KvSourceStatus.requiresColdReset(amb, rec)).isTrue();
    assertThat(KvSourceStatus.requiresColdReset(rec, new KvSourceStatus.ActiveRecoverable(2))).isTrue();
  }

  @Test
  void badInput_wrongTopicIsRejectedWithoutStateChange() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 1, 0, 5, true));
    KvEventSource s = new KvEventSource(ep(SERVING), 1, 0, 6, null);
    EventSourceRecord wrongTopic =
        new EventSourceRecord(new EventSourceKey(new EventScope.Endpoint(ep(SERVING)), "other", 6), s);
    assertThat(ads.advertise(wrongTopic)).isEqualTo(AdvertisementOutcome.REJECTED_TOPIC);
    assertThat(ads.advertise(wrongTopic).changedState()).isFalse();
    assertThat(ads.size()).isEqualTo(1);
    assertThat(ads.statusOf(key(SERVING, 1, 0))).isEqualTo(new KvSourceStatus.ActiveRecoverable(5));
  }

  @Test
  void badInput_scopeNotTheKvStateEndpointIsRejectedWithoutStateChange() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    KvEventSource s = new KvEventSource(ep(SERVING), 1, 0, 6, null);
    EventSourceRecord wrongScope =
        new EventSourceRecord(new EventSourceKey(new EventScope.Endpoint(ep("ns/c/other")), "kv-events", 6), s);
    EventSourceRecord componentScope =
        new EventSourceRecord(new EventSourceKey(new EventScope.Component("ns", "c"), "kv-events", 6), s);
    assertThat(ads.advertise(wrongScope)).isEqualTo(AdvertisementOutcome.REJECTED_SCOPE_MISMATCH);
    assertThat(ads.advertise(componentScope)).isEqualTo(AdvertisementOutcome.REJECTED_SCOPE_MISMATCH);
    assertThat(ads.size()).isZero();
    assertThat(ads.statusOf(key(SERVING, 1, 0))).isEqualTo(KvSourceStatus.Missing.INSTANCE);
  }

  @Test
  void badInput_removingAnUnknownSourceIsRejectedWithoutStateChange() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 1, 0, 5, true));
    assertThat(ads.withdraw(source(SERVING, 1, 0, 6, true).key()))
        .isEqualTo(AdvertisementOutcome.REJECTED_UNKNOWN_SOURCE);
    assertThat(ads.size()).isEqualTo(1);
    assertThat(ads.statusOf(key(SERVING, 1, 0))).isEqualTo(new KvSourceStatus.ActiveRecoverable(5));
  }

  @Test
  void readvertisingTheSameDescriptorIsUnchanged() {
    KvSourceAdvertisements ads = new KvSourceAdvertisements();
    ads.advertise(source(SERVING, 1, 0, 5, true));
    assertThat(ads.advertise(source(SERVING, 1, 0, 5, true))).isEqualTo(AdvertisementOutcome.UNCHANGED);
    assertThat(ads.statusOf(key(SERVING, 1, 0))).isEqualTo(new KvSourceStatus.ActiveRecoverable(5));
  }
}
