package dev.kvrelay.engine.membership;

import static dev.kvrelay.engine.membership.Cards.adapter;
import static dev.kvrelay.engine.membership.Cards.base;
import static dev.kvrelay.engine.membership.Cards.source;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.WireText;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.EventSourceRecord;
import dev.kvrelay.spi.discovery.ModelRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Property tests: invariants of the projection and of the advertisement store over generated inputs. */
class MembershipProperties {
  private static final String[] ENDPOINTS = {"a/c/e", "b/c/e", "a/c/f"};
  private static final String[] MODELS = {"llama", "mixtral", "x"};
  private static final String[] ALIASES = {"", ",\"aliases\":[\"chat\"]", ",\"aliases\":[\"x\",\"l\"]",
      ",\"aliases\":[\"llama\"]"};
  private static final String[] EXTRAS = {"", ",\"worker_type\":\"decode\"",
      ",\"runtime_config\":{\"enable_eagle\":true}",
      ",\"indexer_identity\":{\"routing_scope\":{\"authority\":\"shared\"}}"};

  /** Decodes one small integer into a card from a vocabulary that provokes every conflict kind. */
  static ModelRecord card(int i) {
    String endpoint = ENDPOINTS[i % 3];
    long worker = (i / 3) % 3;
    String model = MODELS[(i / 9) % 3];
    String aliases = ALIASES[(i / 27) % 4];
    String extra = EXTRAS[(i / 108) % 4];
    long block = (i / 432) % 4 == 3 ? 0 : 16;
    String body = "\"display_name\":\"" + model + "\",\"kv_cache_block_size\":" + block + aliases + extra;
    if ((i / 1728) % 2 == 1) {
      return adapter(endpoint, worker, "s" + (i % 2), "\"display_name\":\"" + model + "-lora\",\"kv_cache_block_size\""
          + ":16,\"lora\":{\"name\":\"n" + (i / 9 % 2) + "\",\"max_gpu_lora_count\":" + (i % 2 + 1) + "}" + aliases);
    }
    return base(endpoint, worker, body);
  }

  static List<ModelRecord> cards(List<Integer> codes) {
    List<ModelRecord> out = new ArrayList<>();
    for (int c : codes) {
      out.add(card(c));
    }
    return out;
  }

  static MembershipProjector projector() {
    return new MembershipProjector(MembershipProjectorTest.DC_A, DiscoveryScope.watchAll());
  }

  @Test
  void projectionDoesNotDependOnInputOrder() {
    qt().withExamples(300).forAll(lists().of(integers().between(0, 3455)).ofSizeBetween(0, 14), integers().all())
        .checkAssert((codes, seed) -> {
          List<ModelRecord> in = cards(codes);
          List<ModelRecord> shuffled = new ArrayList<>(in);
          Collections.shuffle(shuffled, new Random(seed));
          assertThat(projector().project(shuffled)).isEqualTo(projector().project(in));
        });
  }

  @Test
  void everyNameIsBoundToExactlyOneTargetAcrossTheFederation() {
    qt().withExamples(300).forAll(lists().of(integers().between(0, 3455)).ofSizeBetween(0, 14))
        .checkAssert(codes -> {
          Map<String, Set<List<Object>>> bindings = new HashMap<>();
          for (EndpointMembership m : projector().project(cards(codes)).endpoints().values()) {
            for (ModelRegistration r : m.registrations()) {
              List<Object> b = List.of(r.canonicalModelId(), r.target());
              bindings.computeIfAbsent(r.canonicalModelId(), k -> new HashSet<>()).add(b);
              for (String alias : r.aliases()) {
                assertThat(alias).isNotEqualTo(r.canonicalModelId());
                bindings.computeIfAbsent(alias, k -> new HashSet<>()).add(b);
              }
            }
          }
          bindings.forEach((name, set) -> assertThat(set).as(name).hasSize(1));
        });
  }

  @Test
  void viewInvariants_sortedOutputsAndNoTwoMaterializableEndpointsShareAPool() {
    qt().withExamples(300).forAll(lists().of(integers().between(0, 3455)).ofSizeBetween(0, 14))
        .checkAssert(codes -> {
          MembershipView view = projector().project(cards(codes));
          Map<KvPoolId, DynamoEndpointId> pools = new HashMap<>();
          for (EndpointMembership m : view.endpoints().values()) {
            assertThat(m.registrations()).isSortedAccordingTo(ModelRegistration::compareTo).doesNotHaveDuplicates();
            assertThat(m.conflicts()).isSortedAccordingTo(MembershipConflict::compareTo).doesNotHaveDuplicates();
            assertThat(m.models()).isSortedAccordingTo(WireText.CODE_POINT_ORDER).doesNotHaveDuplicates();
            assertThat(m.aliases()).isSortedAccordingTo(WireText.CODE_POINT_ORDER).doesNotHaveDuplicates();
            for (String served : m.adapters().keySet()) {
              assertThat(m.models()).contains(served);
            }
            if (m.isMaterializable()) {
              assertThat(m.roles()).isNotEmpty();
              assertThat(pools.put(m.poolId(view.dcId()).orElseThrow(), m.endpoint())).isNull();
            }
          }
        });
  }

  @Test
  void generationsAreKeptForUnchangedMembershipsAndFreshOtherwise() {
    qt().withExamples(200)
        .forAll(lists().of(integers().between(0, 3455)).ofSizeBetween(0, 10),
            lists().of(integers().between(0, 3455)).ofSizeBetween(0, 10))
        .checkAssert((first, second) -> {
          MembershipProjector p = projector();
          MembershipView v1 = p.project(cards(first));
          long next = p.nextGeneration();
          MembershipView v2 = p.project(cards(second));
          assertThat(p.project(cards(second))).isEqualTo(v2);
          Set<Long> seen = new HashSet<>();
          for (EndpointMembership m : v2.endpoints().values()) {
            assertThat(seen.add(m.generation())).isTrue();
            EndpointMembership old = v1.endpoints().get(m.endpoint());
            if (old != null && old.equalsIgnoringGeneration(m)) {
              assertThat(m.generation()).isEqualTo(old.generation());
            } else {
              assertThat(m.generation()).isGreaterThanOrEqualTo(next);
            }
          }
        });
  }

  @Test
  void advertisementsLeaveNoResidueAndRejectionsChangeNothing() {
    qt().withExamples(300).forAll(lists().of(integers().between(0, 255)).ofSizeBetween(0, 30))
        .checkAssert(codes -> {
          KvSourceAdvertisements ads = new KvSourceAdvertisements();
          List<EventSourceRecord> added = new ArrayList<>();
          for (int c : codes) {
            EventSourceRecord r = source("ns/c/e", c % 2, (c / 2) % 2, (c / 4) % 3, (c / 12) % 2 == 0);
            if ((c / 24) % 3 == 0) {
              int before = ads.size();
              AdvertisementOutcome o = ads.withdraw(r.key());
              assertThat(ads.size()).isEqualTo(o.changedState() ? before - 1 : before);
            } else {
              ads.advertise(r);
              added.add(r);
            }
          }
          for (EventSourceRecord r : added) {
            ads.withdraw(r.key());
          }
          assertThat(ads.size()).isZero();
          for (int w = 0; w < 2; w++) {
            for (int rank = 0; rank < 2; rank++) {
              assertThat(ads.statusOf(new KvSourceKey(Cards.ep("ns/c/e"), w, rank))).isEqualTo(KvSourceStatus.Missing.INSTANCE);
            }
          }
        });
  }
}
