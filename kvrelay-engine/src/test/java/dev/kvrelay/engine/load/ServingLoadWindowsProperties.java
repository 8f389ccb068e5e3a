package dev.kvrelay.engine.load;

import static dev.kvrelay.engine.load.ServingLoadFixtures.descriptor;
import static dev.kvrelay.engine.load.ServingLoadFixtures.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.ModelServingLoad;
import dev.kvrelay.engine.wire.PoolDeploymentStatus;
import dev.kvrelay.engine.wire.PoolServingLoad;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Invariants of the serving-load projection over random catalogs, checked against a simple exact model. */
class ServingLoadWindowsProperties {

  private static final String[] NAMESPACES = {"a", "b", "\uFFFF", "\uD83D\uDE00"};
  private static final String[] MODELS = {"m1", "m2", "\uFFFF", "\uD83D\uDE00", "m1-lora"};
  private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  /** A random catalog of up to 10 pools with distinct pool ids, in random order. */
  private static List<ServingPoolInput> catalog(long seed) {
    Random r = new Random(seed);
    List<int[]> ids = new ArrayList<>();
    for (int domain = 0; domain < 4; domain++) {
      for (int dc = 0; dc < 4; dc++) {
        ids.add(new int[] {domain, dc});
      }
    }
    Collections.shuffle(ids, r);
    int n = r.nextInt(11);
    List<ServingPoolInput> inputs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ProducerIdentity producer = LoadFixtures.producer(ids.get(i)[0], ids.get(i)[1]);
      List<String> models = new ArrayList<>();
      for (String m : MODELS) {
        if (r.nextInt(3) == 0) {
          models.add(m);
        }
      }
      if (models.isEmpty()) {
        models.add(MODELS[r.nextInt(MODELS.length)]);
      }
      KvPoolDescriptor d = descriptor(producer, NAMESPACES[r.nextInt(NAMESPACES.length)], models);
      Map<Long, RuntimeConfig> configs = new HashMap<>();
      int workers = r.nextInt(4);
      for (int w = 0; w < workers; w++) {
        OptionalLong seqs = switch (r.nextInt(4)) {
          case 0 -> OptionalLong.empty();
          case 1 -> OptionalLong.of(r.nextLong());
          default -> OptionalLong.of(r.nextInt(1024));
        };
        configs.put(r.nextLong(), worker(seqs, 1 + r.nextInt(r.nextBoolean() ? 4 : 4096)));
      }
      inputs.add(new ServingPoolInput(d, configs, PoolLoadSnapshot.EMPTY));
    }
    return inputs;
  }

  private static ServingLoadUpdate project(List<ServingPoolInput> inputs) {
    try {
      ServingLoadWindows w = new ServingLoadWindows(1000);
      w.initial(0);
      return w.next(1000, inputs);
    } catch (LoadWindowException e) {
      throw new AssertionError(e);
    }
  }

  private static int utf8Compare(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void everyInputPoolAppearsExactlyOnceSortedByPoolId() {
    qt().withExamples(500).forAll(longs().all()).checkAssert(seed -> {
      List<ServingPoolInput> inputs = catalog(seed);
      ServingLoadUpdate u = project(inputs);
      List<ProducerIdentity> expected = new ArrayList<>();
      for (ServingPoolInput in : inputs) {
        expected.add(in.descriptor().producer());
      }
      assertThat(u.pools()).extracting(PoolServingLoad::producer).containsExactlyInAnyOrderElementsOf(expected);
      for (int i = 1; i < u.pools().size(); i++) {
        assertThat(u.pools().get(i - 1).producer().poolId().compareTo(u.pools().get(i).producer().poolId()))
            .isNegative();
      }
    });
  }

  @Test
  void everyNamespaceModelAppearsOnceWithExactlyItsPools() {
    qt().withExamples(500).forAll(longs().all()).checkAssert(seed -> {
      List<ServingPoolInput> inputs = catalog(seed);
      Map<List<String>, Set<KvPoolId>> expected = new HashMap<>();
      for (ServingPoolInput in : inputs) {
        for (ModelRegistration reg : in.descriptor().registrations()) {
          expected.computeIfAbsent(List.of(in.descriptor().servingEndpoint().namespace(), reg.canonicalModelId()),
              k -> new HashSet<>()).add(in.descriptor().poolId());
        }
      }
      ServingLoadUpdate u = project(inputs);
      Map<List<String>, Set<KvPoolId>> actual = new HashMap<>();
      for (ModelServingLoad m : u.models()) {
        List<KvPoolId> pools = m.deployment().servingPools();
        assertThat(actual.put(List.of(m.namespace(), m.canonicalModelId()), new HashSet<>(pools))).isNull();
        assertThat(new HashSet<>(pools)).hasSameSizeAs(pools);
        for (int i = 1; i < pools.size(); i++) {
          assertThat(pools.get(i - 1).compareTo(pools.get(i))).isNegative();
        }
        assertThat(m.load()).isEqualTo(ServingLoadWindows.MODEL_VIEW_WITHOUT_FRONTENDS);
      }
      assertThat(actual).isEqualTo(expected);
      for (int i = 1; i < u.models().size(); i++) {
        ModelServingLoad a = u.models().get(i - 1);
        ModelServingLoad b = u.models().get(i);
        int c = utf8Compare(a.namespace(), b.namespace());
        assertThat(c != 0 ? c : utf8Compare(a.canonicalModelId(), b.canonicalModelId())).isNegative();
      }
    });
  }

  @Test
  void deploymentMatchesAnExactModel() {
    qt().withExamples(500).forAll(longs().all()).checkAssert(seed -> {
      List<ServingPoolInput> inputs = catalog(seed);
      ServingLoadUpdate u = project(inputs);
      Map<KvPoolId, PoolDeploymentStatus> byPool = new HashMap<>();
      for (PoolServingLoad p : u.pools()) {
        byPool.put(p.producer().poolId(), p.deployment());
      }
      for (ServingPoolInput in : inputs) {
        PoolDeploymentStatus d = byPool.get(in.descriptor().poolId());
        Map<Long, RuntimeConfig> configs = in.runtimeConfigs();
        if (configs.isEmpty()) {
          assertThat(d).isEqualTo(PoolDeploymentStatus.EMPTY);
          continue;
        }
        assertThat(d.liveWorkers()).hasValue(configs.size());
        BigInteger sum = BigInteger.ZERO;
        boolean all = true;
        for (RuntimeConfig c : configs.values()) {
          if (c.maxNumSeqs().isEmpty()) {
            all = false;
          } else {
            sum = sum.add(new BigInteger(Long.toUnsignedString(c.maxNumSeqs().getAsLong()))
                .multiply(BigInteger.valueOf(c.dataParallelSize())));
          }
        }
        if (all) {
          assertThat(d.maxConcurrency()).hasValue(sum.min(U64_MAX).longValue());
        } else {
          assertThat(d.maxConcurrency()).isEmpty();
        }
      }
    });
  }

  @Test
  void projectionDoesNotDependOnInputOrder() {
    qt().withExamples(300).forAll(longs().all()).checkAssert(seed -> {
      List<ServingPoolInput> inputs = catalog(seed);
      List<ServingPoolInput> shuffled = new ArrayList<>(inputs);
      Collections.shuffle(shuffled, new Random(~seed));
      assertThat(project(shuffled)).isEqualTo(project(inputs));
    });
  }

  @Test
  void sequencesIncreaseByOneAcrossRandomCatalogs() {
    qt().withExamples(100).forAll(longs().all()).checkAssert(seed -> {
      ServingLoadWindows w = new ServingLoadWindows(1000);
      try {
        assertThat(w.initial(0).windowSequence()).isZero();
        for (long s = 1; s <= 5; s++) {
          assertThat(w.next(s, catalog(seed + s)).windowSequence()).isEqualTo(s);
        }
      } catch (LoadWindowException e) {
        throw new AssertionError(e);
      }
    });
  }
}
