package dev.kvrelay.engine.hub;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1EncodeException;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;

/**
 * Thread-safe (implementations are called from any consumer thread, one chunk at a time per stream): how a
 * {@link PoolStream} encodes one CBI1 snapshot chunk of its bootstrap. The only implementation used in
 * production is {@link #CBI1}; the interface exists as a <b>test seam</b> (package-private, installed only
 * through {@link HubRegistry#snapshotEncoderForTests(SnapshotChunkEncoder)}) so tests can make the encoder fail
 * ("panic": any {@link RuntimeException} or a {@link Cbi1EncodeException} ⇒ INTERNAL and a fence) or be
 * cancelled ({@link java.util.concurrent.CancellationException} ⇒ PUBLICATION_UNAVAILABLE, no fence), wan-grpc
 * §9 C40.
 */
@FunctionalInterface
interface SnapshotChunkEncoder {
  /** The real encoder: {@link Cbi1Encoder#encodeSnapshotChunk}. */
  SnapshotChunkEncoder CBI1 = Cbi1Encoder::encodeSnapshotChunk;

  /** Encodes chunk {@code chunkIndex} of {@code words} as a CBI1 snapshot-chunk frame at {@code sequence}. */
  byte[] encode(CkfFormat format, long dcId, long sequence, long[] words, int chunkIndex) throws Cbi1EncodeException;
}
