package dev.kvrelay.ckf.consumer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.AssembledSnapshot;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException;
import dev.kvrelay.ckf.cbi1.Cbi1Decoder;
import dev.kvrelay.ckf.cbi1.Cbi1Frame;
import dev.kvrelay.ckf.cbi1.SnapshotAssembly;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the ingestion task of one lane. Feeds one consumer lane from one
 * subscription stream of CBI1 payloads with their envelope sequences, applying the consumer envelope
 * checks of {@code ckf-cbi1.md} §6.6 between the codec and the lane's state machine.
 *
 * <p>Per frame, in order: the payload is decoded against the lane's format (any {@link Cbi1DecodeException}
 * ends the stream); then the envelope checks — a chunk has {@code base_sequence == sequence}; every
 * header's {@code dc_id} equals the producer's and its {@code epoch} equals the envelope {@code sequence};
 * a delta's {@code base_epoch} equals the envelope {@code base_sequence}; a heartbeat has an empty payload,
 * {@code base == sequence} and the lane installed at {@code sequence}. Chunks accumulate in a
 * {@link SnapshotAssembly} and install as one snapshot once complete; deltas go to
 * {@link GlobalCkfLaneIngestor#applyDelta} with the lane's strict rules (non-empty, unique, in range).
 *
 * <p>Any outcome for which {@link FeedResult#endsStream()} holds means the subscription must be dropped:
 * the caller resubscribes and installs a fresh snapshot. The transport (in-process hub or gRPC client)
 * checks the stream envelope (contract marker, protocol version, producer identity) before calling here.
 *
 * @param <P> the lane's pool identity type
 */
public final class Cbi1LaneFeed<P> {

  /** Immutable: what happened to one frame. */
  public enum Kind {
    /** A snapshot chunk was accepted; more chunks are needed. */
    CHUNK_ACCEPTED,
    /** The last chunk completed the snapshot and the lane installed it. */
    SNAPSHOT_INSTALLED,
    /** The delta was applied. */
    DELTA_APPLIED,
    /** The heartbeat confirmed the installed sequence. */
    HEARTBEAT_CONFIRMED,
    /** The lane ignored the frame (stale or foreign); the stream may go on. */
    IGNORED,
    /** The payload failed CBI1 decoding or snapshot assembly; see {@link FeedResult#decodeError()}. */
    DECODE_FAILED,
    /** The payload disagreed with its envelope or producer; see {@link FeedResult#detail()}. */
    ENVELOPE_MISMATCH,
    /** The lane's state machine refused the frame; see {@link FeedResult#laneOutcome()}. */
    LANE_REJECTED
  }

  /**
   * Immutable result of one frame.
   *
   * @param kind what happened
   * @param laneOutcome the lane's answer, if the frame reached the lane
   * @param decodeError the codec's reason, for {@link Kind#DECODE_FAILED}
   * @param detail a human-readable explanation, empty when there is nothing to add
   */
  public record FeedResult(
      Kind kind,
      @Nullable LaneIngestOutcome laneOutcome,
      Cbi1DecodeException.@Nullable Reason decodeError,
      String detail) {

    /** True if the subscription must end and be re-established with a fresh snapshot. */
    public boolean endsStream() {
      return kind == Kind.DECODE_FAILED || kind == Kind.ENVELOPE_MISMATCH || kind == Kind.LANE_REJECTED;
    }
  }

  private static final FeedResult CHUNK_ACCEPTED = new FeedResult(Kind.CHUNK_ACCEPTED, null, null, "");

  private final GlobalCkfLaneIngestor<P> lane;
  private final P identity;
  private final long producerDcId;
  private final LaneLease lease;
  private final CkfFormat format;
  private final SnapshotAssembly assembly;

  /**
   * A feed for one subscription.
   *
   * @param lane the lane's ingestor, already {@link GlobalCkfLaneIngestor#assign assigned} {@code lease}
   * @param identity the subscribed producer identity, compared with the lane's assignment
   * @param producerDcId the subscribed producer's dc id, compared with every CBI1 header
   * @param lease the lease the lane was assigned for this subscription
   * @param format the subscribed CKF format (seed and bucket count every header must carry)
   */
  public Cbi1LaneFeed(
      GlobalCkfLaneIngestor<P> lane, P identity, long producerDcId, LaneLease lease, CkfFormat format) {
    this.lane = Objects.requireNonNull(lane, "lane");
    this.identity = Objects.requireNonNull(identity, "identity");
    this.producerDcId = producerDcId;
    this.lease = Objects.requireNonNull(lease, "lease");
    this.format = Objects.requireNonNull(format, "format");
    this.assembly = new SnapshotAssembly(format);
  }

  /** Feeds a {@code FILTER_UPDATE_KIND_SNAPSHOT_CHUNK} payload. */
  public FeedResult snapshotChunk(long baseSequence, long sequence, byte[] payload) {
    if (baseSequence != sequence) {
      return mismatch("snapshot chunk base_sequence " + Long.toUnsignedString(baseSequence)
          + " != sequence " + Long.toUnsignedString(sequence));
    }
    Cbi1Frame frame;
    try {
      frame = Cbi1Decoder.decode(format, payload);
    } catch (Cbi1DecodeException e) {
      assembly.reset();
      return decodeFailed(e);
    }
    if (!(frame instanceof Cbi1Frame.SnapshotChunk)) {
      assembly.reset();
      return mismatch("envelope kind SNAPSHOT_CHUNK carries a CBI1 delta");
    }
    FeedResult header = checkHeader(frame, sequence);
    if (header != null) {
      assembly.reset();
      return header;
    }
    Optional<AssembledSnapshot> done;
    try {
      done = assembly.accept(frame);
    } catch (Cbi1DecodeException e) {
      return decodeFailed(e);
    }
    if (done.isEmpty()) {
      return CHUNK_ACCEPTED;
    }
    AssembledSnapshot snapshot = done.get();
    return fromLane(
        lane.installSnapshot(lease, identity, snapshot.epoch(), snapshot.words()), Kind.SNAPSHOT_INSTALLED);
  }

  /** Feeds a {@code FILTER_UPDATE_KIND_DELTA} payload. */
  public FeedResult delta(long baseSequence, long sequence, byte[] payload) {
    Cbi1Frame frame;
    try {
      frame = Cbi1Decoder.decode(format, payload);
    } catch (Cbi1DecodeException e) {
      return decodeFailed(e);
    }
    if (!(frame instanceof Cbi1Frame.Delta delta)) {
      return mismatch("envelope kind DELTA carries a CBI1 snapshot chunk");
    }
    FeedResult header = checkHeader(frame, sequence);
    if (header != null) {
      return header;
    }
    if (delta.baseEpoch() != baseSequence) {
      return mismatch("delta base_epoch " + Long.toUnsignedString(delta.baseEpoch())
          + " != envelope base_sequence " + Long.toUnsignedString(baseSequence));
    }
    if (assembly.inProgress()) {
      assembly.reset();
      return mismatch("delta arrived before the snapshot was complete");
    }
    return fromLane(
        lane.applyDelta(lease, identity, baseSequence, sequence, delta.buckets(), delta.words(),
            delta.imageCount()),
        Kind.DELTA_APPLIED);
  }

  /** Feeds a {@code FILTER_UPDATE_KIND_HEARTBEAT}. */
  public FeedResult heartbeat(long baseSequence, long sequence, byte[] payload) {
    if (payload.length != 0) {
      return mismatch("heartbeat carries a " + payload.length + "-byte payload");
    }
    if (baseSequence != sequence) {
      return mismatch("heartbeat base_sequence " + Long.toUnsignedString(baseSequence)
          + " != sequence " + Long.toUnsignedString(sequence));
    }
    if (assembly.inProgress()) {
      assembly.reset();
      return mismatch("heartbeat arrived before the snapshot was complete");
    }
    return fromLane(lane.checkHeartbeat(lease, sequence), Kind.HEARTBEAT_CONFIRMED);
  }

  private @Nullable FeedResult checkHeader(Cbi1Frame frame, long sequence) {
    if (frame.dcId() != producerDcId) {
      return mismatch(String.format("CBI1 dc_id %016x != producer dc_id %016x", frame.dcId(), producerDcId));
    }
    if (frame.epoch() != sequence) {
      return mismatch("CBI1 epoch " + Long.toUnsignedString(frame.epoch()) + " != envelope sequence "
          + Long.toUnsignedString(sequence));
    }
    return null;
  }

  private static FeedResult fromLane(LaneIngestOutcome outcome, Kind success) {
    if (outcome.deactivatesLane()) {
      return new FeedResult(Kind.LANE_REJECTED, outcome, null, outcome.name());
    }
    if (outcome == LaneIngestOutcome.AWAITING_SNAPSHOT) {
      return new FeedResult(Kind.LANE_REJECTED, outcome, null, "delta before any snapshot");
    }
    if (outcome.wroteWords() || outcome == LaneIngestOutcome.HEARTBEAT_ACKNOWLEDGED
        || outcome == LaneIngestOutcome.DRAIN_ACKNOWLEDGED) {
      return new FeedResult(success, outcome, null, "");
    }
    return new FeedResult(Kind.IGNORED, outcome, null, outcome.name());
  }

  private static FeedResult decodeFailed(Cbi1DecodeException e) {
    return new FeedResult(Kind.DECODE_FAILED, null, e.reason(), e.getMessage() == null ? "" : e.getMessage());
  }

  private static FeedResult mismatch(String detail) {
    return new FeedResult(Kind.ENVELOPE_MISMATCH, null, null, detail);
  }
}
