package dev.kvrelay.ckf.hashing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** vectors.md §2: the canonical sequence-hash chain (seed 1337). */
class SequenceHashTest {

  private static long u(String unsignedDecimal) {
    return Long.parseUnsignedLong(unsignedDecimal);
  }

  @Test
  void upstreamComputeSeqHashForBlockVector() {
    // U: cuckoo/tests.rs compute_seq_hash_for_block.
    long[] blocks = {0x0123456789ABCDEFL, 0x1111222233334444L, 0xDEADBEEFCAFEBABEL};
    assertThat(SequenceHash.chain(blocks))
        .containsExactly(0x0123456789ABCDEFL, 0x98E7E55F299CF592L, 0x65D53B99C5252D19L);
  }

  @Test
  void computedChildOfRoot17And23And29() {
    // C: vectors.md §2, producer.md §3.3.
    long first = SequenceHash.child(SequenceHash.root(17), 23);
    assertThat(first).isEqualTo(0xE7D5CFB58104F9EFL).isEqualTo(u("16705486771261340143"));
    assertThat(SequenceHash.child(first, 29))
        .isEqualTo(0xB740F566D85B1539L)
        .isEqualTo(u("13204823929515611449"));
  }

  @Test
  void computedChainOverBlocks11_22_33() {
    // C: vectors.md §2 and runtime-inputs.md §7.4.
    assertThat(SequenceHash.chain(new long[] {11, 22, 33}))
        .containsExactly(11L, 750553365844651409L, 3257565445809651757L);
  }

  @Test
  void rootIsIdentityAndChainSeedIs1337() {
    assertThat(SequenceHash.root(0xFFFF_FFFF_FFFF_FFFFL)).isEqualTo(0xFFFF_FFFF_FFFF_FFFFL);
    assertThat(SequenceHash.CHAIN_SEED).isEqualTo(1337L);
    assertThat(SequenceHash.chain(new long[0])).isEmpty();
  }

  @Test
  void chainIntoCallerArrayAtOffsetsMatchesVector() throws HashingInputException {
    long[] in = {99, 11, 22, 33, 99};
    long[] out = {-1, -1, -1, -1, -1, -1};
    assertThat(SequenceHash.chain(in, 1, 3, out, 2)).isEqualTo(3);
    assertThat(out).containsExactly(-1, -1, 11L, 750553365844651409L, 3257565445809651757L, -1);
  }

  @Test
  void chainInPlaceAndShiftedLeftInPlace() throws HashingInputException {
    long[] same = {11, 22, 33};
    SequenceHash.chain(same, 0, 3, same, 0);
    assertThat(same).containsExactly(11L, 750553365844651409L, 3257565445809651757L);

    long[] shifted = {0, 11, 22, 33};
    SequenceHash.chain(shifted, 1, 3, shifted, 0);
    assertThat(shifted).containsExactly(11L, 750553365844651409L, 3257565445809651757L, 33L);
  }

  @Test
  void rejectsBadRangesWithTypedReasonsAndWritesNothing() {
    long[] in = {11, 22, 33};
    long[] out = {7, 7};
    assertReason(() -> SequenceHash.chain(in, 0, 3, out, 0), HashingInputException.Reason.OUTPUT_TOO_SMALL);
    assertReason(() -> SequenceHash.chain(in, 0, 1, out, 2), HashingInputException.Reason.OUTPUT_TOO_SMALL);
    assertReason(() -> SequenceHash.chain(in, 0, 1, out, 3), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(() -> SequenceHash.chain(in, 0, 1, out, -1), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(() -> SequenceHash.chain(in, 2, 2, out, 0), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(() -> SequenceHash.chain(in, -1, 1, out, 0), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(() -> SequenceHash.chain(in, 0, -1, out, 0), HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertReason(
        () -> SequenceHash.chain(in, Integer.MAX_VALUE, Integer.MAX_VALUE, out, 0),
        HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertThat(out).containsExactly(7, 7);

    long[] overlapping = {11, 22, 33, 0};
    assertReason(
        () -> SequenceHash.chain(overlapping, 0, 3, overlapping, 1),
        HashingInputException.Reason.INPUT_RANGE_INVALID);
    assertThat(overlapping).containsExactly(11, 22, 33, 0);
  }

  interface Call {
    void run() throws HashingInputException;
  }

  static void assertReason(Call call, HashingInputException.Reason reason) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            HashingInputException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }
}
