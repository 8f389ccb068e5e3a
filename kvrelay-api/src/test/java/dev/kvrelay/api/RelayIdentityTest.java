package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.security.SecureRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** producer.md §1.1: relay incarnation = 64 random bits & 0x7FFF_FFFF_FFFF_FFFF. */
class RelayIdentityTest {

  /** A generator that returns one fixed value. */
  private static RandomGenerator fixed(long value) {
    return () -> value;
  }

  @Test
  void incarnationClearsOnlyTheTopBit() {
    qt().withExamples(1000).forAll(longs().all()).checkAssert(bits -> {
      long incarnation = RelayIdentity.newRelayIncarnation(fixed(bits));
      assertThat(incarnation).isNotNegative();
      assertThat(incarnation ^ bits).isIn(0L, Long.MIN_VALUE);
    });
  }

  @Test
  void decisionPinned_incarnationZeroIsAllowed_followUpstream() {
    // producer.md §1.1 decision box: upstream has no non-zero guard; 0 is a legal incarnation.
    assertThat(RelayIdentity.newRelayIncarnation(fixed(Long.MIN_VALUE))).isZero();
    assertThat(RelayIdentity.start(5, fixed(0)).relayIncarnation()).isZero();
    assertThat(RelayIdentity.newRelayIncarnation(fixed(-1L))).isEqualTo(0x7FFF_FFFF_FFFF_FFFFL);
  }

  @Test
  void secureRandomIncarnationsAreNonNegative() {
    SecureRandom random = new SecureRandom();
    for (int i = 0; i < 1000; i++) {
      assertThat(RelayIdentity.newRelayIncarnation(random)).isNotNegative();
    }
  }

  @Test
  void startKeepsTheRuntimeId() {
    RelayIdentity id = RelayIdentity.start(-2L, fixed(0x1234));
    assertThat(id.drtInstanceId()).isEqualTo(-2L);
    assertThat(id.relayIncarnation()).isEqualTo(0x1234);
    assertThat(id.toString()).contains("18446744073709551614");
  }
}
