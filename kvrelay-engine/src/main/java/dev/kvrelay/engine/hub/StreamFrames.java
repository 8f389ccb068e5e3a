package dev.kvrelay.engine.hub;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.cbi1.Cbi1EncodeException;
import dev.kvrelay.engine.wire.PoolFrame;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (final references and lock-free counters, no lock of its own; {@link #chunk} runs on the
 * consumer's thread without the stream lock): the frames one {@link PoolStream} builds, namely its SNAPSHOT_CHUNK encoding with the encoder
 * outcomes (wan-grpc §9 C40), its HEARTBEAT frames and the delivered-frame counters.
 *
 * <p>An encoder failure (a {@link Cbi1EncodeException} or any runtime exception) is a terminal hub fault INTERNAL,
 * so the generation is fenced; a cancelled encoder ({@link CancellationException}) ends only this stream
 * PUBLICATION_UNAVAILABLE (counted) without a fence. Either way the stream has ended when {@link #chunk} returns
 * null. Decision (pinned by {@code HubConformanceTest.c40_decisionTheBootstrapEncodesOnDemandWithNoFrameQueuedAhead}):
 * no chunk is encoded ahead of the consumer (upstream keeps exactly one queued frame); the progress deadline is the
 * same.
 */
final class StreamFrames {
  private static final byte[] EMPTY = new byte[0];

  private final PoolStream stream;
  private final HubSlot hub;
  private final HubRegistry registry;
  private final String subscriberId;
  private final long snapshotSeq;

  StreamFrames(PoolStream stream, HubSlot hub, HubRegistry registry, String subscriberId, long snapshotSeq) {
    this.stream = stream;
    this.hub = hub;
    this.registry = registry;
    this.subscriberId = subscriberId;
    this.snapshotSeq = snapshotSeq;
  }

  /** The frame of chunk {@code chunk} of {@code src} (base = seq = S), or null if the encoder failed or was cancelled. */
  @Nullable PoolFrame chunk(long[] src, int chunk) {
    byte[] payload;
    try {
      payload = registry.snapshotEncoder().encode(hub.format(), hub.dcId(), snapshotSeq, src, chunk);
    } catch (CancellationException e) {
      // A cancelled encoder: this stream ends PUBLICATION_UNAVAILABLE, the generation is not fenced.
      registry.counters().encoderCancellations.increment();
      stream.endOwn(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE,
          "snapshot encoder of subscriber " + subscriberId + " was cancelled"));
      return null;
    } catch (Cbi1EncodeException | RuntimeException e) {
      // An encoder failure ("panic"): terminal hub fault INTERNAL, the generation is fenced.
      String why = "snapshot chunk encoding failed: " + e;
      hub.encoderFault(why);
      stream.terminate(RelayErrorReason.INTERNAL, why); // no-op when the fault already ended this stream
      return null;
    }
    return PoolFrame.of(registry.relay(), hub.producer(), snapshotSeq, snapshotSeq, registry.epochMicros(),
        PoolFrame.Kind.SNAPSHOT_CHUNK, payload);
  }

  /** A HEARTBEAT frame with base = seq = {@code lastSeqSent} (counted). */
  PoolFrame heartbeat(long lastSeqSent) {
    registry.counters().heartbeats.increment();
    return PoolFrame.of(registry.relay(), hub.producer(), lastSeqSent, lastSeqSent, registry.epochMicros(),
        PoolFrame.Kind.HEARTBEAT, EMPTY);
  }

  /** Counts one frame of {@code payloadBytes} handed to the consumer. */
  void delivered(int payloadBytes) {
    registry.counters().framesDelivered.increment();
    registry.counters().bytesDelivered.add(payloadBytes);
  }
}
