package dev.kvrelay.discovery.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code vectors §8}: the instance-id SipHash-1-3 (Rust {@code DefaultHasher} over a {@code &str}). */
class InstanceIdHashTest {

  @ParameterizedTest
  @CsvSource({
    "worker-0, 12863466981639851263, 1186445869714687, 43710f49c0cff",
    "worker-1, 16750551406947868958, 6167992384364830, 15e9c1a30c211e",
    "dynamo-vllm-worker-0, 10967984186418798649, 6222693399011385, 161b81b5982039",
    "worker-0-engine-0, 8663969510287147603, 8051026481054291, 1c9a5dad7b0253",
  })
  void matchesTheSpecVectors(String input, String raw, long masked, String hex) {
    assertThat(Long.toUnsignedString(InstanceIdHash.sipHash13(input))).isEqualTo(raw);
    assertThat(InstanceIdHash.instanceId(input)).isEqualTo(masked);
    assertThat(Long.toHexString(InstanceIdHash.instanceId(input))).isEqualTo(hex);
  }

  @ParameterizedTest
  @CsvSource({"''", "a", "1234567", "12345678", "123456789abcdef", "πод-0"})
  void everyMaskedIdFitsIn53Bits(String input) {
    assertThat(InstanceIdHash.instanceId(input)).isBetween(0L, InstanceIdHash.MASK);
  }
}
