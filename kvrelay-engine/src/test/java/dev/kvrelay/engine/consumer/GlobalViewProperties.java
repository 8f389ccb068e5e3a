package dev.kvrelay.engine.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Invariants of {@link GlobalView} against simple exact models. */
class GlobalViewProperties {

  /**
   * For 1..16 DCs each holding a random prefix (0..n blocks) of one request, the answer is exactly
   * min(held, matching prefix of the query) per DC, in tokens depth × block size. (Sparse filters: a false
   * positive has probability ~1e-6 per probe, far below one per run.)
   */
  @Test
  void depthPerDcEqualsTheHeldPrefix() {
    qt().withExamples(40).forAll(
        integers().between(1, 16),
        lists().of(integers().between(0, 16)).ofSize(16),
        integers().between(1, 16),
        integers().between(0, 16))
        .checkAssert((dcs, heldSeeds, n, divergeAt) -> {
          KvQuerySemantics semantics = new KvQuerySemantics(3, KvQueryHashFormat.DYNAMO_STANDARD_V1);
          GlobalView view = GlobalView.create(GlobalViewTest.CONSUMER, GlobalViewTest.DOMAIN,
              GlobalViewTest.FORMAT, semantics, 1_000);
          int[] request = GlobalViewTest.tokens(7, 7 + 3 * n - 1);
          long[] blocks;
          try {
            blocks = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, 3).blockHashes(request);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
          List<KvPoolDescriptor> pools = new ArrayList<>();
          int[] held = new int[dcs];
          for (int i = 0; i < dcs; i++) {
            held[i] = heldSeeds.get(i) % (n + 1);
            KvPoolDescriptor d = GlobalViewTest.descriptor(
                GlobalViewTest.producer(GlobalViewTest.DOMAIN, 500 + i, 7, GlobalViewTest.FORMAT), semantics,
                List.of(GlobalViewTest.LLAMA));
            assertThat(view.assign(d).lane()).isEqualTo(i);
            pools.add(d);
          }
          for (int i = 0; i < dcs; i++) {
            GlobalViewTest.install(view, pools.get(i), Arrays.copyOf(blocks, held[i]), 100);
          }
          int[] query = request.clone();
          int matchable = n;
          if (divergeAt < n) {
            query[divergeAt * 3 + 2] = -5;
            matchable = divergeAt;
          }
          GlobalViewAnswer answer = view.query(query, new ModelTarget.Base("llama"), 200);
          assertThat(answer.status()).isEqualTo(GlobalViewAnswer.Status.ANSWERED);
          assertThat(answer.matches()).hasSize(dcs);
          for (int i = 0; i < dcs; i++) {
            GlobalViewMatch m = answer.matches().get(i);
            assertThat(m.pool()).isEqualTo(pools.get(i).poolId());
            assertThat(m.depthBlocks()).isEqualTo(Math.min(held[i], matchable));
            assertThat(m.matchedTokens()).isEqualTo(3L * m.depthBlocks());
          }
        });
  }

  /**
   * Random assign / remove sequences against a lane-array model: lanes hold distinct dc ids, at most 16;
   * ASSIGNED takes the lowest free lane and bumps the generation; every refusal and failed remove changes
   * nothing; the refusal reason is the first broken rule.
   */
  @Test
  void laneMappingFollowsTheModel() {
    qt().withExamples(200).forAll(lists().of(integers().between(0, 24 * 4 - 1)).ofSizeBetween(1, 60))
        .checkAssert(ops -> {
          GlobalView view = GlobalViewTest.view(GlobalViewTest.STD4);
          long[] model = new long[16];
          Arrays.fill(model, -1);
          long generation = 0;
          for (int op : ops) {
            long dc = op % 24;
            int kind = op / 24;
            if (kind == 3) {
              KvPoolDescriptor d = GlobalViewTest.descriptor(dc);
              int lane = indexOf(model, dc);
              assertThat(view.remove(d.poolId())).isEqualTo(lane >= 0);
              if (lane >= 0) {
                model[lane] = -1;
                generation++;
              }
            } else {
              KvPoolDescriptor d = switch (kind) {
                case 0 -> GlobalViewTest.descriptor(dc);
                case 1 -> GlobalViewTest.descriptor(GlobalViewTest.producer(GlobalViewTest.domain(9), dc, 7,
                    GlobalViewTest.FORMAT), GlobalViewTest.STD4, List.of(GlobalViewTest.LLAMA));
                default -> GlobalViewTest.descriptor(GlobalViewTest.producer(GlobalViewTest.DOMAIN, dc, 7,
                    CkfFormat.of(0x5EEDL, 128)), GlobalViewTest.STD4, List.of(GlobalViewTest.LLAMA));
              };
              GlobalViewAssignment a = view.assign(d);
              int existing = indexOf(model, dc);
              int free = indexOf(model, -1);
              if (kind == 1) {
                assertThat(a.refusal()).isEqualTo(GlobalViewRefusal.DIFFERENT_DOMAIN);
              } else if (kind == 2) {
                assertThat(a.refusal()).isEqualTo(GlobalViewRefusal.DIFFERENT_FORMAT);
              } else if (existing >= 0) {
                assertThat(a.outcome()).isEqualTo(GlobalViewAssignment.Outcome.UPDATED);
                assertThat(a.lane()).isEqualTo(existing);
              } else if (free < 0) {
                assertThat(a.refusal()).isEqualTo(GlobalViewRefusal.FULL);
              } else {
                assertThat(a.outcome()).isEqualTo(GlobalViewAssignment.Outcome.ASSIGNED);
                assertThat(a.lane()).isEqualTo(free);
                model[free] = dc;
                generation++;
              }
            }
            assertThat(view.generation()).isEqualTo(generation);
            int count = 0;
            for (int lane = 0; lane < 16; lane++) {
              KvPoolDescriptor held = view.descriptor(lane);
              if (model[lane] < 0) {
                assertThat(held).isNull();
              } else {
                count++;
                assertThat(held).isNotNull();
                assertThat(held.poolId().dcId().value()).isEqualTo(model[lane]);
              }
            }
            assertThat(view.poolCount()).isEqualTo(count);
            if (count == 0) {
              assertThat(view.indexer()).isNull();
            } else {
              assertThat(Integer.bitCount(view.indexer().manifest().configuredLanes())).isEqualTo(count);
            }
          }
        });
  }

  private static int indexOf(long[] lanes, long value) {
    for (int i = 0; i < lanes.length; i++) {
      if (lanes[i] == value) {
        return i;
      }
    }
    return -1;
  }
}
