package dev.kvrelay.engine.load;

import static dev.kvrelay.engine.load.LoadFixtures.producer;
import static dev.kvrelay.engine.load.ServingLoadFixtures.NONE;
import static dev.kvrelay.engine.load.ServingLoadFixtures.some;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.engine.wire.ModelDeploymentStatus;
import dev.kvrelay.engine.wire.ModelServingLoad;
import dev.kvrelay.engine.wire.PoolDeploymentStatus;
import dev.kvrelay.engine.wire.PoolServingLoad;
import dev.kvrelay.engine.wire.RequestLifecycleStats;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadView;
import dev.kvrelay.engine.wire.TokenLoadStats;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The §1.7 presence rules (wan-grpc.md), enforced by the value records' constructors. */
class ServingLoadValuesTest {

  private static final KvPoolId POOL = producer(1, 1).poolId();

  private static OptionalLong iff(boolean set) {
    return set ? some(3) : NONE;
  }

  private static ServingLoadView poolView(DataStatus s, boolean gauges) {
    return new ServingLoadView(Optional.empty(), TokenLoadStats.forPool(iff(gauges), iff(gauges)), s, 0);
  }

  private static ServingLoadView modelView(DataStatus s, boolean gauges) {
    return new ServingLoadView(Optional.of(new RequestLifecycleStats(1, 2, 3, 4, iff(gauges), iff(gauges))),
        TokenLoadStats.forModel(iff(gauges), iff(gauges), 5, 6), s, 0);
  }

  private static ModelDeploymentStatus frontends(DataStatus s) {
    return switch (s) {
      case COMPLETE -> new ModelDeploymentStatus(2, 2, 1, List.of(POOL));
      case DEGRADED -> new ModelDeploymentStatus(2, 1, 0, List.of(POOL));
      case UNAVAILABLE -> new ModelDeploymentStatus(2, 0, 0, List.of(POOL));
    };
  }

  @ParameterizedTest
  @EnumSource(DataStatus.class)
  void poolSchedulerGaugesAreSetIffComplete(DataStatus s) {
    boolean complete = s == DataStatus.COMPLETE;
    assertThatCode(() -> new PoolServingLoad(producer(1, 1), poolView(s, complete), PoolDeploymentStatus.EMPTY))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> new PoolServingLoad(producer(1, 1), poolView(s, !complete), PoolDeploymentStatus.EMPTY))
        .isInstanceOf(IllegalArgumentException.class);
    // only one of the two gauges
    ServingLoadView half = new ServingLoadView(Optional.empty(), TokenLoadStats.forPool(some(1), NONE), s, 0);
    assertThatThrownBy(() -> new PoolServingLoad(producer(1, 1), half, PoolDeploymentStatus.EMPTY))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void poolViewCarriesNoRequestStatsAndNoModelTokenFields() {
    ServingLoadView withRequests = new ServingLoadView(
        Optional.of(new RequestLifecycleStats(0, 0, 0, 0, NONE, NONE)), TokenLoadStats.forPool(NONE, NONE),
        DataStatus.UNAVAILABLE, 0);
    assertThatThrownBy(() -> new PoolServingLoad(producer(1, 1), withRequests, PoolDeploymentStatus.EMPTY))
        .isInstanceOf(IllegalArgumentException.class);
    for (int field = 2; field < 6; field++) {
      OptionalLong[] f = {NONE, NONE, NONE, NONE, NONE, NONE};
      f[field] = some(0);
      ServingLoadView v = new ServingLoadView(Optional.empty(), new TokenLoadStats(f[0], f[1], f[2], f[3], f[4], f[5]),
          DataStatus.UNAVAILABLE, 0);
      assertThatThrownBy(() -> new PoolServingLoad(producer(1, 1), v, PoolDeploymentStatus.EMPTY))
          .as("token field %d", field + 1).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(DataStatus.class)
  void modelRequestAndInputTokenGaugesAreSetIffComplete(DataStatus s) {
    boolean complete = s == DataStatus.COMPLETE;
    assertThatCode(() -> new ModelServingLoad("ns", "m", modelView(s, complete), frontends(s)))
        .doesNotThrowAnyException();
    // request gauges wrong (checked by the view itself)
    assertThatThrownBy(() -> new ServingLoadView(
            Optional.of(new RequestLifecycleStats(1, 2, 3, 4, iff(!complete), iff(complete))),
            TokenLoadStats.forModel(iff(complete), iff(complete), 5, 6), s, 0))
        .isInstanceOf(IllegalArgumentException.class);
    // token gauges wrong, request gauges right
    ServingLoadView tokensWrong = new ServingLoadView(
        Optional.of(new RequestLifecycleStats(1, 2, 3, 4, iff(complete), iff(complete))),
        TokenLoadStats.forModel(iff(complete), iff(!complete), 5, 6), s, 0);
    assertThatThrownBy(() -> new ModelServingLoad("ns", "m", tokensWrong, frontends(s)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void modelViewRequiresRequestsAndTotalsAndNeverSetsSchedulerGauges() {
    DataStatus s = DataStatus.UNAVAILABLE;
    ServingLoadView noRequests = new ServingLoadView(Optional.empty(), TokenLoadStats.forModel(NONE, NONE, 0, 0), s, 0);
    assertThatThrownBy(() -> new ModelServingLoad("ns", "m", noRequests, frontends(s)))
        .isInstanceOf(IllegalArgumentException.class);
    Optional<RequestLifecycleStats> requests = Optional.of(new RequestLifecycleStats(0, 0, 0, 0, NONE, NONE));
    for (int field : new int[] {0, 1}) {
      OptionalLong[] f = {NONE, NONE, NONE, NONE, some(0), some(0)};
      f[field] = some(0);
      ServingLoadView v = new ServingLoadView(requests, new TokenLoadStats(f[0], f[1], f[2], f[3], f[4], f[5]), s, 0);
      assertThatThrownBy(() -> new ModelServingLoad("ns", "m", v, frontends(s)))
          .as("token field %d", field + 1).isInstanceOf(IllegalArgumentException.class);
    }
    for (int field : new int[] {4, 5}) {
      OptionalLong[] f = {NONE, NONE, NONE, NONE, some(0), some(0)};
      f[field] = NONE;
      ServingLoadView v = new ServingLoadView(requests, new TokenLoadStats(f[0], f[1], f[2], f[3], f[4], f[5]), s, 0);
      assertThatThrownBy(() -> new ModelServingLoad("ns", "m", v, frontends(s)))
          .as("token field %d", field + 1).isInstanceOf(IllegalArgumentException.class);
    }
  }

  /** wan-grpc.md §4.2: COMPLETE needs expected > 0 and observed == expected; DEGRADED observed > 0; else UNAVAILABLE. */
  @Test
  void modelStatusMustAgreeWithFrontendCounts() {
    ServingLoadView complete = modelView(DataStatus.COMPLETE, true);
    ServingLoadView degraded = modelView(DataStatus.DEGRADED, false);
    ServingLoadView unavailable = modelView(DataStatus.UNAVAILABLE, false);
    assertThatThrownBy(() -> new ModelServingLoad("ns", "m", complete, new ModelDeploymentStatus(0, 0, 0, List.of())))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModelServingLoad("ns", "m", complete, new ModelDeploymentStatus(3, 2, 2, List.of())))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModelServingLoad("ns", "m", degraded, new ModelDeploymentStatus(3, 0, 0, List.of())))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ModelServingLoad("ns", "m", unavailable, new ModelDeploymentStatus(3, 1, 0, List.of())))
        .isInstanceOf(IllegalArgumentException.class);
    // a failed namespace listing makes a fully observed model DEGRADED, which is allowed
    assertThatCode(() -> new ModelServingLoad("ns", "m", degraded, new ModelDeploymentStatus(2, 2, 2, List.of())))
        .doesNotThrowAnyException();
    // u64 counts: 2^63 observed is "> 0"
    assertThatCode(() -> new ModelServingLoad("ns", "m", complete,
            new ModelDeploymentStatus(Long.MIN_VALUE, Long.MIN_VALUE, 0, List.of())))
        .doesNotThrowAnyException();
  }

  @Test
  void modelKeyTextMustBeValid() {
    ServingLoadView v = modelView(DataStatus.UNAVAILABLE, false);
    ModelDeploymentStatus d = frontends(DataStatus.UNAVAILABLE);
    for (String bad : new String[] {"", " ns", "ns\u00A0", "\uD800"}) {
      assertThatThrownBy(() -> new ModelServingLoad(bad, "m", v, d)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> new ModelServingLoad("ns", bad, v, d)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void servingPoolsMustBeUnique() {
    assertThatThrownBy(() -> new ModelDeploymentStatus(0, 0, 0, List.of(POOL, producer(2, 1).poolId(), POOL)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void poolDeploymentLiveWorkersIsNeverZeroAndMaxConcurrencyNeedsWorkers() {
    assertThatThrownBy(() -> new PoolDeploymentStatus(some(0), NONE)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PoolDeploymentStatus(NONE, some(4))).isInstanceOf(IllegalArgumentException.class);
    assertThatCode(() -> new PoolDeploymentStatus(some(-1L), some(0))).doesNotThrowAnyException();
  }

  @Test
  void updateRejectsDuplicateProducersAndModelKeys() {
    PoolServingLoad p = new PoolServingLoad(producer(1, 1), poolView(DataStatus.UNAVAILABLE, false),
        PoolDeploymentStatus.EMPTY);
    assertThatThrownBy(() -> new ServingLoadUpdate(1, 0, 1000, List.of(p, p), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    ModelServingLoad m = new ModelServingLoad("ns", "m", modelView(DataStatus.UNAVAILABLE, false),
        frontends(DataStatus.UNAVAILABLE));
    ModelServingLoad sameKey = new ModelServingLoad("ns", "m", modelView(DataStatus.UNAVAILABLE, false),
        new ModelDeploymentStatus(0, 0, 0, List.of()));
    assertThatThrownBy(() -> new ServingLoadUpdate(1, 0, 1000, List.of(), List.of(m, sameKey)))
        .isInstanceOf(IllegalArgumentException.class);
    // same model in another namespace, same namespace with another model: distinct keys
    assertThatCode(() -> new ServingLoadUpdate(1, 0, 1000, List.of(), List.of(m,
            new ModelServingLoad("ns2", "m", modelView(DataStatus.UNAVAILABLE, false), frontends(DataStatus.UNAVAILABLE)),
            new ModelServingLoad("ns", "m2", modelView(DataStatus.UNAVAILABLE, false), frontends(DataStatus.UNAVAILABLE)))))
        .doesNotThrowAnyException();
  }
}
