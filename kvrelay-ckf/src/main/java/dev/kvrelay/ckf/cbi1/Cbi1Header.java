package dev.kvrelay.ckf.cbi1;

/**
 * Immutable and thread-safe: the variable header fields of a decoded CBI1 frame.
 *
 * <p>The fixed fields (magic, wire version, fingerprint bits, slots per bucket, format version) and
 * the checksum are validated by the decoder and not kept. {@code seed} and {@code bucketCount} equal
 * the expected {@code CkfFormat} the frame was decoded against.
 *
 * @param seed CKF seed, unsigned
 * @param bucketCount bucket count B
 * @param dcId producer {@code pool_id.dc_id}, unsigned; the consumer checks it against the subscription
 * @param epoch publication sequence: the delta's new sequence, or the snapshot sequence of a chunk
 */
public record Cbi1Header(long seed, int bucketCount, long dcId, long epoch) {

  @Override
  public String toString() {
    return "Cbi1Header[seed=0x" + Long.toHexString(seed) + ", bucketCount=" + bucketCount
        + ", dcId=0x" + Long.toHexString(dcId) + ", epoch=" + Long.toUnsignedString(epoch) + "]";
  }
}
