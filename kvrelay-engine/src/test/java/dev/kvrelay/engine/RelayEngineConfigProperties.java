package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

import java.math.BigInteger;
import java.net.Inet6Address;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Invariants of the configuration against simple exact models. */
class RelayEngineConfigProperties {

  private static Optional<RelayEngineConfig> tryBuild(RelayEngineConfig.Builder b) {
    try {
      return Optional.of(b.build());
    } catch (RelayConfigException e) {
      return Optional.empty();
    }
  }

  @Test
  void publicationThresholdAcceptedExactlyInOneToIntMax() {
    BigInteger intMax = BigInteger.valueOf(Integer.MAX_VALUE);
    qt().withExamples(2000).forAll(longs().all()).checkAssert(v -> {
      BigInteger unsigned = new BigInteger(Long.toUnsignedString(v));
      boolean expected = unsigned.signum() > 0 && unsigned.compareTo(intMax) <= 0;
      Optional<RelayEngineConfig> built = tryBuild(RelayEngineConfig.builder().dcId("dc-a").publicationThreshold(v));
      assertThat(built.isPresent()).isEqualTo(expected);
      built.ifPresent(c -> assertThat(c.publicationThreshold()).isEqualTo(v.intValue()));
    });
  }

  @Test
  void timersAcceptedExactlyUpTo365Days() {
    qt().withExamples(2000).forAll(longs().between(-5, 40_000_000_000L)).checkAssert(v -> {
      boolean expected = v >= 1 && v <= 365L * 24 * 3600 * 1000;
      assertThat(tryBuild(RelayEngineConfig.builder().dcId("dc-a").bind("127.0.0.1:1").snapshotProgressTimeoutMs(v))
          .isPresent()).isEqualTo(expected);
    });
  }

  /** Model: the smallest power of two ≥ max(2, ceil(5E / 16)) that is ≤ 2^24; else rejected. */
  @Test
  void bucketCountMatchesTheSizingModel() {
    qt().withExamples(2000).forAll(longs().between(1, 60_000_000L)).checkAssert(e -> {
      long need = Math.max(2, (5 * e + 15) / 16);
      long pow = 1;
      while (pow < need) {
        pow *= 2;
      }
      final long b = pow;
      Optional<RelayEngineConfig> built = tryBuild(RelayEngineConfig.builder().dcId("dc-a").expectedUniqueBlocks(e));
      if (b > (1 << 24)) {
        assertThat(built).isEmpty();
      } else {
        assertThat(built).hasValueSatisfying(c -> {
          assertThat(c.bucketCount()).isEqualTo(b);
          assertThat(4L * c.bucketCount() * 4).isGreaterThanOrEqualTo(5L * e); // ≤ 80 % load at E
        });
      }
    });
  }

  @Test
  void ipv4BindParsesToTheModelAddress() {
    qt().withExamples(1000).forAll(integers().all(), integers().between(0, 65_535)).checkAssert((ip, port) -> {
      byte[] four = new byte[4];
      for (int i = 0; i < 4; i++) {
        four[i] = (byte) (ip >>> (24 - 8 * i));
      }
      String text = (four[0] & 0xFF) + "." + (four[1] & 0xFF) + "." + (four[2] & 0xFF) + "." + (four[3] & 0xFF)
          + ":" + port;
      BindAddress b = BindAddress.tryParse(text).orElseThrow();
      assertThat(b.address().getAddress()).containsExactly(four);
      assertThat(b.port()).isEqualTo(port);
      assertThat(b.text()).isEqualTo(text);
    });
  }

  @Test
  void ipv6BindParsesToTheModelAddress() {
    qt().withExamples(1000).forAll(longs().all(), longs().all(), integers().between(0, 65_535))
        .checkAssert((hi, lo, port) -> {
          byte[] sixteen = new byte[16];
          for (int i = 0; i < 8; i++) {
            sixteen[i] = (byte) (hi >>> (56 - 8 * i));
            sixteen[8 + i] = (byte) (lo >>> (56 - 8 * i));
          }
          try {
            String host = Inet6Address.getByAddress(null, sixteen, -1).getHostAddress(); // full, uncompressed
            BindAddress b = BindAddress.tryParse("[" + host + "]:" + port).orElseThrow();
            assertThat(b.address().getAddress()).containsExactly(sixteen);
            assertThat(b.isIpv6()).isTrue();
            assertThat(b.address()).isInstanceOf(Inet6Address.class); // IPv4-mapped stays IPv6, as written
          } catch (java.net.UnknownHostException ex) {
            throw new AssertionError(ex);
          }
        });
  }

  @Test
  void decimalEnvironmentValuesRoundTrip() {
    qt().withExamples(1000).forAll(longs().between(1, 65_536), integers().between(0, 3)).checkAssert((v, pad) -> {
      String text = " ".repeat(pad) + v + "\t".repeat(pad);
      try {
        RelayEngineConfig c = RelayEngineConfig.fromEnvironment(Map.of("DYN_DC_ID", "dc-a",
            "DYN_RELAY_BIND", "[::]:0", "DYN_RELAY_LOAD_FANOUT_CAPACITY", text));
        assertThat(c.loadFanoutCapacity()).isEqualTo(v.intValue());
      } catch (RelayConfigException e) {
        throw new AssertionError(e);
      }
    });
  }

  /** Bad input → typed result: arbitrary text never escapes as an unchecked exception. */
  @Test
  void arbitraryEnvironmentTextGivesATypedResult() {
    qt().withExamples(2000).forAll(strings().allPossible().ofLengthBetween(0, 12),
        strings().basicLatinAlphabet().ofLengthBetween(0, 12)).checkAssert((a, b) -> {
          for (String name : new String[] {"DYN_DC_ID", "DYN_RELAY_BIND", "DYN_RELAY_NAMESPACES",
              "DYN_RELAY_ENDPOINT_PREFIXES", "DYN_RELAY_WATCH_ALL", "DYN_RELAY_EXPECTED_UNIQUE_BLOCKS",
              "DYN_RELAY_MAX_MESSAGE_BYTES"}) {
            for (String value : new String[] {a, b}) {
              try {
                Map<String, String> env = new java.util.HashMap<>();
                env.put("DYN_DC_ID", "dc-a");
                env.put(name, value);
                RelayEngineConfig.fromEnvironment(env);
              } catch (RelayConfigException e) {
                assertThat(e.violations()).isNotEmpty();
              }
            }
          }
        });
  }
}
