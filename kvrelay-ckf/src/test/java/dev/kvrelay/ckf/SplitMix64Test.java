package dev.kvrelay.ckf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import org.junit.jupiter.api.Test;

/**
 * vectors.md §1.1: producer RNG. The C values were confirmed with an independent Python
 * implementation of splitmix64 written from ckf-cbi1.md §3.1.
 */
class SplitMix64Test {

  @Test
  void defaultSeedLaneZeroStateAndFirstFourDraws() {
    SplitMix64 rng = SplitMix64.forLane0(CkfFormat.DEFAULT_SEED);
    assertThat(rng.state()).isEqualTo(0xC050D0A84124DB84L);
    assertThat(SplitMix64.laneSeed(0x5DEECE66D1B54A33L, 0)).isEqualTo(0xC050D0A84124DB84L);
    assertThat(rng.next()).isEqualTo(0x8D0956E040739722L);
    assertThat(rng.next()).isEqualTo(0x116C72C2242D8178L);
    assertThat(rng.next()).isEqualTo(0x5ECB896FE0120182L);
    assertThat(rng.next()).isEqualTo(0xF72885B013AC4B58L);
  }

  @Test
  void eachDrawAdvancesStateByGolden() {
    SplitMix64 rng = SplitMix64.withState(-1L);
    rng.next();
    assertThat(rng.state()).isEqualTo(-1L + SplitMix64.GOLDEN);
  }
}
