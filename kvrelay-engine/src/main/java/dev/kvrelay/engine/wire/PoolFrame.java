package dev.kvrelay.engine.wire;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (the payload array is not copied: producers hand it over and never write it
 * again): one in-process {@code FilterUpdate} (wan-grpc.md §1.6, framing §2.5), unvalidated. Absent
 * sub-messages are {@code null}; {@code kindNumber} is the raw enum number so unknown kinds survive.
 *
 * @param protocolVersion field 1
 * @param contractMarker field 127 (fixed32, unsigned, held in a long)
 * @param relay field 2, null when absent
 * @param producer field 3, null when absent
 * @param baseSequence field 4 (unsigned)
 * @param sequence field 5 (unsigned)
 * @param sendTsUs field 6 (unsigned µs since the epoch)
 * @param kindNumber field 7, the raw {@code FilterUpdateKind} number
 * @param payload field 8 (CBI1; empty for a heartbeat)
 */
@SuppressWarnings("ArrayRecordComponent") // the payload is handed over uncopied; toString prints only its length
public record PoolFrame(
    int protocolVersion,
    long contractMarker,
    @Nullable RelayIdentity relay,
    @Nullable ProducerIdentity producer,
    long baseSequence,
    long sequence,
    long sendTsUs,
    int kindNumber,
    byte[] payload) {

  /** Immutable: {@code FilterUpdateKind}; {@link #UNKNOWN} stands for any number this build does not know. */
  public enum Kind {
    /** 0. */
    UNSPECIFIED(0),
    /** 1. */
    SNAPSHOT_CHUNK(1),
    /** 2. */
    DELTA(2),
    /** 3. */
    HEARTBEAT(3),
    /** Any other number. */
    UNKNOWN(-1);

    private final int number;

    Kind(int number) {
      this.number = number;
    }

    /** The wire number ({@code -1} for {@link #UNKNOWN}). */
    public int number() {
      return number;
    }

    /** The kind for a wire number. */
    public static Kind of(int number) {
      return switch (number) {
        case 0 -> UNSPECIFIED;
        case 1 -> SNAPSHOT_CHUNK;
        case 2 -> DELTA;
        case 3 -> HEARTBEAT;
        default -> UNKNOWN;
      };
    }
  }

  /** Requires a non-null payload (use an empty array for none). */
  public PoolFrame {
    Objects.requireNonNull(payload, "payload");
  }

  /** A well-formed envelope (marker and version of this build) for a frame of a known kind. */
  public static PoolFrame of(RelayIdentity relay, ProducerIdentity producer, long baseSequence, long sequence,
      long sendTsUs, Kind kind, byte[] payload) {
    return new PoolFrame(RelayEnvelope.PROTOCOL_VERSION, RelayEnvelope.CONTRACT_MARKER, relay, producer,
        baseSequence, sequence, sendTsUs, kind.number(), payload);
  }

  /** The decoded kind. */
  public Kind kind() {
    return Kind.of(kindNumber);
  }

  @Override
  public String toString() {
    return "PoolFrame[" + kind() + "(" + kindNumber + "), base=" + Long.toUnsignedString(baseSequence)
        + ", seq=" + Long.toUnsignedString(sequence) + ", payload=" + payload.length + "B]";
  }
}
