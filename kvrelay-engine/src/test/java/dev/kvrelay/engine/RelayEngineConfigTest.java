package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DynamoEndpointId;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Builder defaults, bounds, set-once behaviour, cross-field rules and the spec's worked examples. */
class RelayEngineConfigTest {

  private static RelayEngineConfig.Builder dcA() {
    return RelayEngineConfig.builder().dcId("dc-a");
  }

  private static RelayConfigException rejected(RelayEngineConfig.Builder builder) {
    return catchThrowableOfType(RelayConfigException.class, builder::build);
  }

  /** Defaults as written in producer.md §7.1–§7.2 and wan-grpc.md §3.1 (independent of RelayConfigKey). */
  static Stream<Arguments> specDefaults() {
    return Stream.of(
        Arguments.of(RelayConfigKey.EXPECTED_UNIQUE_BLOCKS, 1_048_576L),
        Arguments.of(RelayConfigKey.PUBLICATION_THRESHOLD, 16L),
        Arguments.of(RelayConfigKey.PUBLICATION_DELAY_MS, 1L),
        Arguments.of(RelayConfigKey.RECOVERY_ATTEMPT_TIMEOUT_MS, 30_000L),
        Arguments.of(RelayConfigKey.MAX_MESSAGE_BYTES, 8_388_608L),
        Arguments.of(RelayConfigKey.KEEPALIVE_INTERVAL_MS, 20_000L),
        Arguments.of(RelayConfigKey.KEEPALIVE_TIMEOUT_MS, 10_000L),
        Arguments.of(RelayConfigKey.POOL_HEARTBEAT_INTERVAL_MS, 10_000L),
        Arguments.of(RelayConfigKey.READINESS_HEARTBEAT_INTERVAL_MS, 10_000L),
        Arguments.of(RelayConfigKey.CATALOG_HEARTBEAT_INTERVAL_MS, 10_000L),
        Arguments.of(RelayConfigKey.SNAPSHOT_PROGRESS_TIMEOUT_MS, 60_000L),
        Arguments.of(RelayConfigKey.LOAD_WINDOW_MS, 1_000L),
        Arguments.of(RelayConfigKey.LOAD_FANOUT_CAPACITY, 16L),
        Arguments.of(RelayConfigKey.PUBLICATION_QUEUE_CAPACITY, 16L),
        Arguments.of(RelayConfigKey.PUBLICATION_QUEUE_BYTES, 16_777_216L),
        Arguments.of(RelayConfigKey.PUBLICATION_ENCODING_CONCURRENCY, 2L),
        Arguments.of(RelayConfigKey.MAX_CATALOG_SUBSCRIBERS, 64L),
        Arguments.of(RelayConfigKey.MAX_POOL_STREAMS_TOTAL, 64L),
        Arguments.of(RelayConfigKey.MAX_SUBSCRIBERS_PER_POOL, 64L),
        Arguments.of(RelayConfigKey.MAX_INITIALIZED_POOL_HUBS, 64L),
        Arguments.of(RelayConfigKey.MAX_READINESS_SUBSCRIBERS, 64L),
        Arguments.of(RelayConfigKey.MAX_LOAD_SUBSCRIBERS, 64L),
        Arguments.of(RelayConfigKey.MAX_SERVING_LOAD_SUBSCRIBERS, 64L));
  }

  @ParameterizedTest
  @MethodSource("specDefaults")
  void everyKnobHasTheSpecDefault(RelayConfigKey key, long expected) throws Exception {
    RelayEngineConfig config = dcA().build();
    assertThat(config.value(key)).isEqualTo(expected);
    assertThat(config.isExplicit(key)).isFalse();
  }

  @Test
  void theDefaultTableCoversEveryNumericKnob() {
    assertThat(specDefaults().map(a -> a.get()[0]))
        .containsExactlyInAnyOrder(Stream.of(RelayConfigKey.values()).filter(RelayConfigKey::isNumeric).toArray());
  }

  @Test
  void defaultsGiveTheSpecSizingCadenceAndScope() throws Exception {
    RelayEngineConfig config = dcA().build();
    assertThat(config.bucketCount()).isEqualTo(524_288); // vectors.md §4: E = 1 048 576 → B = 524 288
    assertThat(config.ckfFormat()).isEqualTo(CkfFormat.withDefaultSeed(524_288));
    assertThat(config.publicationThreshold()).isEqualTo(16);
    assertThat(config.publicationDelayMs()).isEqualTo(1);
    assertThat(config.recoveryAttemptTimeoutMs()).isEqualTo(30_000);
    assertThat(config.scope().isWatchAll()).isTrue(); // §7.1 (3): nothing → watch all
    assertThat(config.scope().endpointPrefixes()).isEmpty();
    assertThat(config.bind()).isEmpty();
    assertThat(config.wanEnabled()).isFalse();
    assertThat(config.drtInstanceId()).isEmpty();
  }

  /** Bounds from the spec tables: key, smallest accepted, largest accepted (-1 = u64 max, no upper bound). */
  static Stream<Arguments> specBounds() {
    long t = 31_536_000_000L;
    return Stream.of(
        Arguments.of(RelayConfigKey.EXPECTED_UNIQUE_BLOCKS, 1L, 53_687_091L),
        Arguments.of(RelayConfigKey.PUBLICATION_THRESHOLD, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.PUBLICATION_DELAY_MS, 1L, t),
        Arguments.of(RelayConfigKey.RECOVERY_ATTEMPT_TIMEOUT_MS, 1L, t),
        Arguments.of(RelayConfigKey.MAX_MESSAGE_BYTES, 4_259_904L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.KEEPALIVE_INTERVAL_MS, 1L, t),
        Arguments.of(RelayConfigKey.KEEPALIVE_TIMEOUT_MS, 1L, t),
        Arguments.of(RelayConfigKey.POOL_HEARTBEAT_INTERVAL_MS, 1L, t),
        Arguments.of(RelayConfigKey.READINESS_HEARTBEAT_INTERVAL_MS, 1L, t),
        Arguments.of(RelayConfigKey.CATALOG_HEARTBEAT_INTERVAL_MS, 1L, t),
        Arguments.of(RelayConfigKey.SNAPSHOT_PROGRESS_TIMEOUT_MS, 1L, t),
        Arguments.of(RelayConfigKey.LOAD_WINDOW_MS, 1L, t),
        Arguments.of(RelayConfigKey.LOAD_FANOUT_CAPACITY, 1L, 65_536L),
        Arguments.of(RelayConfigKey.PUBLICATION_QUEUE_CAPACITY, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.PUBLICATION_QUEUE_BYTES, 4_194_624L, Long.MAX_VALUE),
        Arguments.of(RelayConfigKey.PUBLICATION_ENCODING_CONCURRENCY, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.MAX_CATALOG_SUBSCRIBERS, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.MAX_POOL_STREAMS_TOTAL, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.MAX_SUBSCRIBERS_PER_POOL, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.MAX_INITIALIZED_POOL_HUBS, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.MAX_READINESS_SUBSCRIBERS, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.MAX_LOAD_SUBSCRIBERS, 1L, (long) Integer.MAX_VALUE),
        Arguments.of(RelayConfigKey.MAX_SERVING_LOAD_SUBSCRIBERS, 1L, (long) Integer.MAX_VALUE));
  }

  private static RelayEngineConfig.Builder withKnob(RelayConfigKey key, long value) {
    RelayEngineConfig.Builder b = dcA().set(key, value);
    return key.isWanOnly() ? b.bind("127.0.0.1:5561") : b;
  }

  @ParameterizedTest
  @MethodSource("specBounds")
  void everyKnobAcceptsItsMinimumAndRejectsJustBelow(RelayConfigKey key, long min, long max) throws Exception {
    assertThat(withKnob(key, min).build().value(key)).isEqualTo(min);
    assertThat(withKnob(key, min + 1).build().value(key)).isEqualTo(min + 1);
    RelayConfigException e = rejected(withKnob(key, min - 1));
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.key()).isEqualTo(key);
      assertThat(v.reason()).isIn(RelayConfigViolation.Reason.NOT_POSITIVE, RelayConfigViolation.Reason.BELOW_MINIMUM);
    });
  }

  @ParameterizedTest
  @MethodSource("specBounds")
  void everyKnobAcceptsItsMaximumAndRejectsJustAbove(RelayConfigKey key, long min, long max) throws Exception {
    assertThat(withKnob(key, max).build().value(key)).isEqualTo(max);
    assertThat(withKnob(key, max - 1).build().value(key)).isEqualTo(max - 1);
    RelayConfigException e = rejected(withKnob(key, max + 1)); // Long.MAX_VALUE + 1 is 2^63 unsigned
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.key()).isEqualTo(key);
      assertThat(v.reason()).isIn(RelayConfigViolation.Reason.ABOVE_MAXIMUM,
          RelayConfigViolation.Reason.BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM);
    });
  }

  @ParameterizedTest
  @MethodSource("specBounds")
  void everyKnobRejectsZeroAsNotPositive(RelayConfigKey key, long min, long max) {
    RelayConfigException e = rejected(withKnob(key, 0));
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.NOT_POSITIVE);
      assertThat(v.message()).isEqualTo(key.key() + " must be positive");
    });
  }

  // ---- vectors.md §10.2 (wan/grpc/config.rs tests, C25) ----

  @Test
  void vector10_2_maxMessageBytes4194368Rejected() {
    RelayConfigException e = rejected(withKnob(RelayConfigKey.MAX_MESSAGE_BYTES, 4_194_368L));
    assertThat(e.violations()).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.BELOW_MINIMUM);
  }

  @Test
  void vector10_2_publicationQueueBytes4194368Rejected() {
    RelayConfigException e = rejected(withKnob(RelayConfigKey.PUBLICATION_QUEUE_BYTES, 4_194_368L));
    assertThat(e.violations()).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.BELOW_MINIMUM);
  }

  @Test
  void vector10_2_loadFanout65537Rejected() {
    assertThat(rejected(withKnob(RelayConfigKey.LOAD_FANOUT_CAPACITY, 65_537)).violations())
        .extracting(RelayConfigViolation::reason).containsExactly(RelayConfigViolation.Reason.ABOVE_MAXIMUM);
  }

  @Test
  void vector10_2_u64MaxTimerRejected() {
    for (RelayConfigKey key : RelayConfigKey.values()) {
      if (key.isTimer()) {
        assertThat(rejected(withKnob(key, -1L /* u64::MAX */)).violations())
            .extracting(RelayConfigViolation::reason).containsExactly(RelayConfigViolation.Reason.ABOVE_MAXIMUM);
      }
    }
  }

  @Test
  void vector10_2_timer31536000000MsAccepted() throws Exception {
    for (RelayConfigKey key : RelayConfigKey.values()) {
      if (key.isTimer()) {
        assertThat(withKnob(key, 31_536_000_000L).build().value(key)).isEqualTo(31_536_000_000L);
      }
    }
  }

  @Test
  void vector10_2_bind0000Port5561AcceptedAndKeptAsGiven() throws Exception {
    RelayEngineConfig config = dcA().bind("0.0.0.0:5561").build();
    assertThat(config.bind()).hasValueSatisfying(b -> {
      assertThat(b.text()).isEqualTo("0.0.0.0:5561");
      assertThat(b.port()).isEqualTo(5561);
      assertThat(b.address().getHostAddress()).isEqualTo("0.0.0.0");
    });
  }

  @Test
  void vector10_2_documentedBindExamplesAccepted() throws Exception {
    assertThat(dcA().bind("127.0.0.1:5561").build().bind().orElseThrow().toString()).isEqualTo("127.0.0.1:5561");
    BindAddress v6 = dcA().bind("[::1]:5561").build().bind().orElseThrow();
    assertThat(v6.isIpv6()).isTrue();
    assertThat(v6.address().isLoopbackAddress()).isTrue();
    assertThat(v6.text()).isEqualTo("[::1]:5561");
  }

  @Test
  void vector10_2_endpointPrefixWholeSegmentMatching() throws Exception {
    RelayEngineConfig config = dcA().namespaces(List.of("prod-a", "production"))
        .endpointPrefixes(List.of("prod-a.backend", "production.back")).build();
    assertThat(config.scope().matchesEndpoint(new DynamoEndpointId("prod-a", "backend", "generate"))).isTrue();
    assertThat(config.scope().matchesEndpoint(new DynamoEndpointId("prod-a", "backend2", "generate"))).isFalse();
    assertThat(config.scope().matchesEndpoint(new DynamoEndpointId("production", "backend", "generate")))
        .isFalse();
  }

  // ---- dc id (producer.md §1.2) ----

  @Test
  void dcIdIsDerivedFromTheString() throws Exception {
    assertThat(dcA().build().dcId().hex()).isEqualTo("04f110c98b1bfc48");
    assertThat(RelayEngineConfig.builder().dcId("us-east-1").build().dcId().hex()).isEqualTo("455bfcc6324f64a0");
    assertThat(dcA().build().dcName()).isEqualTo("dc-a");
  }

  @Test
  void emptyDcIdHasTheUpstreamMessage() {
    RelayConfigException e = rejected(RelayEngineConfig.builder().dcId(""));
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.key()).isEqualTo(RelayConfigKey.DC_ID);
      assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.BLANK);
      assertThat(v.message()).isEqualTo("KV DC Relay dc_id must not be empty");
    });
  }

  @Test
  void dcIdWithSurroundingWhitespaceHasTheUpstreamMessage() {
    for (String bad : List.of(" dc-a", "dc-a\t", "\u00a0dc-a", " ")) {
      RelayConfigException e = rejected(RelayEngineConfig.builder().dcId(bad));
      assertThat(e.violations()).singleElement().satisfies(v -> {
        assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.SURROUNDING_WHITESPACE);
        assertThat(v.message()).isEqualTo("KV DC Relay dc_id must not contain leading or trailing whitespace");
      });
    }
  }

  @Test
  void missingDcIdIsRequired() {
    RelayConfigException e = rejected(RelayEngineConfig.builder());
    assertThat(e.violations()).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.REQUIRED);
  }

  // ---- expected unique blocks (ckf-cbi1.md §4, vectors.md §4) ----

  @Test
  void bucketCountVectors() throws Exception {
    long[][] vectors = {{1, 2}, {16, 8}, {32, 16}, {64, 32}, {65_536, 32_768}, {10_000_000, 4_194_304},
        {53_687_091, 16_777_216}};
    for (long[] v : vectors) {
      assertThat(dcA().expectedUniqueBlocks(v[0]).build().bucketCount()).as("E=%d", v[0]).isEqualTo((int) v[1]);
    }
  }

  @Test
  void expectedUniqueBlocks53687092NeedsTooManyBuckets() {
    RelayConfigException e = rejected(dcA().expectedUniqueBlocks(53_687_092L));
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM);
      assertThat(v.message()).endsWith("requires 33554432 CKF buckets, exceeding the CBI1 maximum 16777216");
    });
  }

  @Test
  void expectedUniqueBlocksThatOverflowTheArithmeticAreRejectedTyped() {
    assertThat(rejected(dcA().expectedUniqueBlocks(-1L)).violations()).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.BUCKET_COUNT_EXCEEDS_CBI1_MAXIMUM);
  }

  // ---- set-once ----

  @Test
  void everySetterIsSetOnce() {
    RelayEngineConfig.Builder b = RelayEngineConfig.builder().dcId("dc-a").drtInstanceId(7).namespaces(List.of("a"))
        .watchAll(false).endpointPrefixes(List.of("a.b")).bind("127.0.0.1:1");
    assertThatThrownBy(() -> b.dcId("dc-b")).isInstanceOf(IllegalStateException.class).hasMessageContaining("dc_id");
    assertThatThrownBy(() -> b.drtInstanceId(8)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> b.namespaces(List.of("b"))).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> b.watchAll(true)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> b.endpointPrefixes(List.of())).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> b.bind("127.0.0.1:2")).isInstanceOf(IllegalStateException.class);
    for (RelayConfigKey key : RelayConfigKey.values()) {
      if (key.isNumeric()) {
        b.set(key, key.defaultValue());
        assertThatThrownBy(() -> b.set(key, 1)).as(key.key()).isInstanceOf(IllegalStateException.class)
            .hasMessage(key.key() + " was already set");
      }
    }
  }

  @Test
  void namedSetterAndGenericSetterShareTheSetOnceSlot() {
    RelayEngineConfig.Builder b = dcA().publicationThreshold(4);
    assertThatThrownBy(() -> b.set(RelayConfigKey.PUBLICATION_THRESHOLD, 5)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> b.publicationThreshold(5)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aRejectedSecondCallLeavesTheFirstValue() throws Exception {
    RelayEngineConfig.Builder b = dcA().publicationThreshold(4);
    assertThatThrownBy(() -> b.publicationThreshold(0)).isInstanceOf(IllegalStateException.class);
    assertThat(b.build().publicationThreshold()).isEqualTo(4);
  }

  @Test
  void genericSetterRefusesNonNumericKeys() {
    assertThatThrownBy(() -> dcA().set(RelayConfigKey.BIND, 1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void everyNamedSetterSetsItsKnob() throws Exception {
    RelayEngineConfig c = dcA().bind("127.0.0.1:1").expectedUniqueBlocks(2).publicationThreshold(3)
        .publicationDelayMs(4).recoveryAttemptTimeoutMs(5).maxMessageBytes(4_259_906).keepaliveIntervalMs(7)
        .keepaliveTimeoutMs(8).poolHeartbeatIntervalMs(9).readinessHeartbeatIntervalMs(10)
        .catalogHeartbeatIntervalMs(11).snapshotProgressTimeoutMs(12).loadWindowMs(13).loadFanoutCapacity(14)
        .publicationQueueCapacity(15).publicationQueueBytes(4_194_640).publicationEncodingConcurrency(17)
        .maxCatalogSubscribers(18).maxPoolStreamsTotal(19).maxSubscribersPerPool(20).maxInitializedPoolHubs(21)
        .maxReadinessSubscribers(22).maxLoadSubscribers(23).maxServingLoadSubscribers(24).build();
    long[] expected = {2, 3, 4, 5, 4_259_906, 7, 8, 9, 10, 11, 12, 13, 14, 15, 4_194_640, 17, 18, 19, 20, 21, 22,
        23, 24};
    RelayConfigKey[] numeric = Stream.of(RelayConfigKey.values()).filter(RelayConfigKey::isNumeric)
        .toArray(RelayConfigKey[]::new);
    assertThat(numeric).hasSize(expected.length);
    for (int i = 0; i < numeric.length; i++) {
      assertThat(c.value(numeric[i])).as(numeric[i].key()).isEqualTo(expected[i]);
      assertThat(c.isExplicit(numeric[i])).isTrue();
    }
    assertThat(c.maxMessageBytes()).isEqualTo(4_259_906);
    assertThat(c.publicationQueueBytes()).isEqualTo(4_194_640);
    assertThat(c.loadFanoutCapacity()).isEqualTo(14);
  }

  // ---- cross-field rules ----

  @Test
  void wanKnobWithoutBindIsRejectedWithTheBindingMessage() {
    RelayConfigException e = rejected(dcA().maxMessageBytes(8_388_608));
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.REQUIRES_BIND);
      assertThat(v.message()).isEqualTo("tuning key max_message_bytes requires bind to enable the WAN server");
    });
  }

  @Test
  void producerKnobsWorkWithoutBind() throws Exception {
    RelayEngineConfig c = dcA().expectedUniqueBlocks(65_536).publicationThreshold(16).publicationDelayMs(1)
        .recoveryAttemptTimeoutMs(30_000).build();
    assertThat(c.bucketCount()).isEqualTo(32_768);
  }

  @Test
  void everyViolationIsListedAtOnce() {
    RelayConfigException e = rejected(RelayEngineConfig.builder().dcId(" x").publicationThreshold(0)
        .loadFanoutCapacity(65_537).bind("localhost:5561").watchAll(true).namespaces(List.of("a")));
    assertThat(e.violations()).extracting(RelayConfigViolation::key).containsExactly(RelayConfigKey.DC_ID,
        RelayConfigKey.WATCH_ALL, RelayConfigKey.BIND, RelayConfigKey.PUBLICATION_THRESHOLD,
        RelayConfigKey.LOAD_FANOUT_CAPACITY);
    assertThat(e.getMessage()).contains("KV DC Relay dc_id must not contain leading or trailing whitespace")
        .contains("invalid KV DC Relay bind address").contains("publication_threshold must be positive");
  }

  @Test
  void invalidBindIsRejectedWithTheUpstreamMessageAndNoRequiresBindNoise() {
    RelayConfigException e = rejected(dcA().bind("localhost:5561").maxMessageBytes(8_388_608));
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.INVALID_BIND_ADDRESS);
      assertThat(v.message()).isEqualTo("invalid KV DC Relay bind address");
    });
  }

  @Test
  void blankBindIsRejected() {
    assertThat(rejected(dcA().bind("  ")).violations()).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.BLANK);
  }

  @Test
  void watchAllExcludesNamespaces() {
    assertThat(rejected(dcA().watchAll(true).namespaces(List.of("a"))).violations())
        .extracting(RelayConfigViolation::reason).containsExactly(RelayConfigViolation.Reason.INVALID_SCOPE);
  }

  @Test
  void watchAllFalseRequiresNamespaces() {
    assertThat(rejected(dcA().watchAll(false)).violations()).extracting(RelayConfigViolation::message)
        .containsExactly("watch_all=false requires namespaces");
  }

  @Test
  void emptyAllowlistIsRejected() {
    assertThat(rejected(dcA().namespaces(List.of())).violations()).extracting(RelayConfigViolation::reason)
        .containsExactly(RelayConfigViolation.Reason.INVALID_SCOPE);
  }

  @Test
  void namespacesMustBeNonBlankTrimmedAndUnique() {
    assertThat(rejected(dcA().namespaces(List.of("a", " ", " b", "a"))).violations())
        .extracting(RelayConfigViolation::reason).containsExactly(RelayConfigViolation.Reason.BLANK,
            RelayConfigViolation.Reason.SURROUNDING_WHITESPACE, RelayConfigViolation.Reason.INVALID_SCOPE);
  }

  @Test
  void prefixOutsideTheConfiguredNamespacesHasTheUpstreamMessage() {
    RelayConfigException e = rejected(dcA().namespaces(List.of("prod")).endpointPrefixes(List.of("production.x")));
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.PREFIX_OUTSIDE_NAMESPACES);
      assertThat(v.message()).isEqualTo("endpoint prefix production.x is outside the configured namespaces");
    });
  }

  @Test
  void prefixEqualToANamespaceOrBelowItIsInside() throws Exception {
    RelayEngineConfig c = dcA().namespaces(List.of("prod", "dev")).endpointPrefixes(List.of("prod", "dev.be.gen"))
        .build();
    assertThat(c.scope().namespaces()).containsExactly("dev", "prod");
    assertThat(c.scope().endpointPrefixes()).containsExactly("prod", "dev.be.gen");
  }

  @Test
  void prefixesWithWatchAllNeedNoNamespace() throws Exception {
    RelayEngineConfig c = dcA().endpointPrefixes(List.of("anything.backend")).build();
    assertThat(c.scope().isWatchAll()).isTrue();
    assertThat(c.scope().matchesEndpoint(new DynamoEndpointId("anything", "backend", "x"))).isTrue();
    assertThat(c.scope().matchesEndpoint(new DynamoEndpointId("other", "backend", "x"))).isFalse();
  }

  @Test
  void prefixesMustBeNonBlankTrimmedAndUnique() {
    assertThat(rejected(dcA().endpointPrefixes(List.of("a", "", "b ", "a"))).violations())
        .extracting(RelayConfigViolation::reason).containsExactly(RelayConfigViolation.Reason.BLANK,
            RelayConfigViolation.Reason.SURROUNDING_WHITESPACE, RelayConfigViolation.Reason.INVALID_SCOPE);
  }

  @Test
  void timerRuleNowPlusDurationMustNotOverflow() throws Exception {
    long now = Long.MAX_VALUE - 1_000;
    RelayConfigException e = catchThrowableOfType(RelayConfigException.class,
        () -> dcA().publicationDelayMs(1_001).recoveryAttemptTimeoutMs(1_000).build(now));
    assertThat(e.violations()).singleElement().satisfies(v -> {
      assertThat(v.key()).isEqualTo(RelayConfigKey.PUBLICATION_DELAY_MS);
      assertThat(v.reason()).isEqualTo(RelayConfigViolation.Reason.DEADLINE_OVERFLOW);
    });
    assertThat(dcA().publicationDelayMs(1_000).recoveryAttemptTimeoutMs(1_000).build(now).publicationDelayMs())
        .isEqualTo(1_000);
    // Exactly at the edge now + duration == Long.MAX_VALUE is fine. Unused WAN timers (no bind) are not checked.
    assertThat(catchThrowableOfType(RelayConfigException.class, () -> dcA().build(now)).violations())
        .extracting(RelayConfigViolation::key).containsExactly(RelayConfigKey.RECOVERY_ATTEMPT_TIMEOUT_MS);
    assertThat(dcA().build(Long.MAX_VALUE - 30_000).recoveryAttemptTimeoutMs()).isEqualTo(30_000);
  }

  @Test
  void builtConfigIsIndependentOfLaterBuilderUse() throws Exception {
    RelayEngineConfig.Builder b = dcA();
    RelayEngineConfig first = b.build();
    b.publicationThreshold(99);
    assertThat(first.publicationThreshold()).isEqualTo(16);
    assertThat(b.build().publicationThreshold()).isEqualTo(99);
  }

  @Test
  void equalSettingsGiveEqualConfigs() throws Exception {
    RelayEngineConfig a = dcA().publicationThreshold(16).bind("127.0.0.1:1").build();
    RelayEngineConfig b = dcA().bind("127.0.0.1:1").build();
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(dcA().bind("127.0.0.1:1").publicationThreshold(17).build());
    assertThat(a).isNotEqualTo(dcA().bind("127.0.0.1:2").build());
    assertThat(a.toString()).contains("dc-a").contains("publication_threshold=16").contains("127.0.0.1:1");
  }

  @Test
  void failedBuildChangesNoState() throws Exception {
    RelayEngineConfig.Builder b = dcA().publicationThreshold(0);
    RelayConfigException first = rejected(b);
    RelayConfigException second = rejected(b);
    assertThat(second.violations()).isEqualTo(first.violations());
  }

  @Test
  void valueOfANonNumericKeyIsAProgrammingError() throws Exception {
    RelayEngineConfig c = dcA().build();
    assertThatThrownBy(() -> c.value(RelayConfigKey.DC_ID)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void envNamesFollowTheSpec() {
    assertThat(RelayConfigKey.DC_ID.envName()).isEqualTo("DYN_DC_ID");
    assertThat(RelayConfigKey.MAX_SUBSCRIBERS_PER_POOL.envName()).isEqualTo("DYN_RELAY_MAX_SUBSCRIBERS_PER_POOL");
    assertThat(RelayConfigKey.PUBLICATION_DELAY_MS.envName()).isEqualTo("DYN_RELAY_PUBLICATION_DELAY_MS");
    assertThat(RelayConfigKey.DRT_INSTANCE_ID.envName()).isNull();
  }

  // ---- decisions ----

  /** Decision (producer.md §1.1): the drt instance id is an input kept as given (a); absent → engine picks (b). */
  @Test
  void decisionDrtInstanceIdIsAnOptionalInputKeptAsGiven() throws Exception {
    assertThat(dcA().drtInstanceId(-2L).build().drtInstanceId()).hasValue(-2L);
    assertThat(dcA().build().drtInstanceId()).isEmpty();
  }

  /** Decision (wan-grpc.md §0, follow (c)): catalog heartbeat and serving-load bound are both configurable. */
  @Test
  void decisionCatalogHeartbeatAndServingLoadAreBothConfigurableWanKnobs() throws Exception {
    RelayEngineConfig c = RelayEngineConfig.fromEnvironment(Map.of("DYN_DC_ID", "dc-a",
        "DYN_RELAY_BIND", "127.0.0.1:5561",
        "DYN_RELAY_CATALOG_HEARTBEAT_INTERVAL_MS", "2500",
        "DYN_RELAY_MAX_SERVING_LOAD_SUBSCRIBERS", "3"));
    assertThat(c.value(RelayConfigKey.CATALOG_HEARTBEAT_INTERVAL_MS)).isEqualTo(2500);
    assertThat(c.value(RelayConfigKey.MAX_SERVING_LOAD_SUBSCRIBERS)).isEqualTo(3);
    assertThat(RelayConfigKey.CATALOG_HEARTBEAT_INTERVAL_MS.isWanOnly()).isTrue();
    assertThat(RelayConfigKey.MAX_SERVING_LOAD_SUBSCRIBERS.isWanOnly()).isTrue();
  }

  /** Decision (wan-grpc.md §6.4): an IPv6 scope id is rejected as an invalid bind address. */
  @Test
  void decisionIpv6ScopeIdIsRejected() {
    assertThat(rejected(dcA().bind("[fe80::1%eth0]:5561")).violations()).extracting(RelayConfigViolation::message)
        .containsExactly("invalid KV DC Relay bind address");
    assertThat(rejected(dcA().bind("[fe80::1%2]:5561")).violations()).hasSize(1);
  }
}
