package dev.kvrelay.ckf.hashing;

/** Stateless and thread-safe: overflow-safe array range checks raising typed errors. */
final class Ranges {
  private Ranges() {}

  /** Checks that {@code [off, off+len)} lies inside an array of {@code arrayLength} elements. */
  static void checkInput(int arrayLength, int off, int len) throws HashingInputException {
    if (off < 0 || len < 0 || off > arrayLength - len) {
      throw new HashingInputException(
          HashingInputException.Reason.INPUT_RANGE_INVALID,
          "range [" + off + ", " + off + " + " + len + ") is outside an array of length " + arrayLength);
    }
  }

  /** Checks that {@code count} values fit into an array of {@code arrayLength} from {@code outOff}. */
  static void checkOutput(int arrayLength, int outOff, int count) throws HashingInputException {
    if (outOff < 0 || outOff > arrayLength) {
      throw new HashingInputException(
          HashingInputException.Reason.INPUT_RANGE_INVALID,
          "output offset " + outOff + " is outside an array of length " + arrayLength);
    }
    if (count > arrayLength - outOff) {
      throw new HashingInputException(
          HashingInputException.Reason.OUTPUT_TOO_SMALL,
          count + " hashes do not fit into an array of length " + arrayLength + " from offset " + outOff);
    }
  }
}
