package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.consumer.Cbi1LaneFeed;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.ckf.consumer.LaneIngestOutcome;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayEnvelope;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the one ingestion task of its subscription. The consumer-side replica of
 * one pool's CKF (wan-grpc.md §7.4): binds one subscription (expected producer, lane lease), checks every
 * frame's envelope and identity (§7.2, §7.4 step 2) and hands the payload to a {@link Cbi1LaneFeed}, which
 * decodes it, checks it against the envelope and applies it to the Global CKF lane (steps 3–5).
 *
 * <p>Any failure (step 6) invalidates only this replica: its lane is retired (unless the lane was already
 * re-leased to a newer session) and the typed {@link ReplicaTermination} is reported; afterwards every frame
 * is refused, without any state change, until {@link #bind} installs a new lease. Freshness (step 7) is
 * computed from the time of the last accepted frame or heartbeat, passed in by the caller.
 */
final class PoolReplica {

  /** Immutable: what happened to one frame. */
  public enum Outcome {
    /** A snapshot chunk was accepted; more are needed. */
    CHUNK_ACCEPTED,
    /** The snapshot completed and was installed. */
    SNAPSHOT_INSTALLED,
    /** The delta was applied. */
    DELTA_APPLIED,
    /** The heartbeat confirmed the installed sequence and refreshed freshness. */
    HEARTBEAT_CONFIRMED,
    /** The frame invalidated the replica; see {@link FrameResult#termination()}. */
    INVALIDATED,
    /** The replica is not bound (never, or invalidated): the frame was refused and nothing changed. */
    REFUSED
  }

  /**
   * Immutable result of one frame or stream event.
   *
   * @param outcome what happened
   * @param termination the typed reason, for {@link Outcome#INVALIDATED} (and for {@link Outcome#REFUSED}: the
   *     earlier termination, if any)
   * @param feed the lane feed's answer when the payload reached it, else null
   * @param detail human-readable explanation, empty when there is nothing to add
   */
  public record FrameResult(
      Outcome outcome,
      @Nullable ReplicaTermination termination,
      Cbi1LaneFeed.@Nullable FeedResult feed,
      String detail) {

    /** True if the replica was invalidated by this frame or event. */
    public boolean invalidated() {
      return outcome == Outcome.INVALIDATED;
    }
  }

  private static final FrameResult CHUNK = new FrameResult(Outcome.CHUNK_ACCEPTED, null, null, "");
  private static final FrameResult INSTALLED = new FrameResult(Outcome.SNAPSHOT_INSTALLED, null, null, "");
  private static final FrameResult DELTA = new FrameResult(Outcome.DELTA_APPLIED, null, null, "");
  private static final FrameResult HEARTBEAT = new FrameResult(Outcome.HEARTBEAT_CONFIRMED, null, null, "");

  private final GlobalCkfLaneIngestor<KvPoolId> lane;
  private final long maxAgeUs;

  private ReplicaState state = ReplicaState.UNBOUND;
  private @Nullable ReplicaTermination termination;
  private @Nullable ProducerIdentity expected;
  private @Nullable LaneLease lease;
  private @Nullable Cbi1LaneFeed<KvPoolId> feed;
  private @Nullable RelayIdentity relay;
  private long lastActivityUs;
  private long sessionGeneration;

  /**
   * A replica writing {@code lane}, usable for {@code maxAgeUs} after each frame or heartbeat.
   *
   * @param lane the claimed lane of this pool (its owner is the pool's {@link KvPoolId})
   * @param maxAgeUs the consumer max-age in µs (choose ≥ 2–3 × the pool heartbeat interval), &gt; 0
   * @throws IllegalArgumentException if {@code maxAgeUs ≤ 0} (configuration, not wire input)
   */
  public PoolReplica(GlobalCkfLaneIngestor<KvPoolId> lane, long maxAgeUs) {
    this.lane = Objects.requireNonNull(lane, "lane");
    if (maxAgeUs <= 0) {
      throw new IllegalArgumentException("maxAgeUs must be > 0, got " + maxAgeUs);
    }
    this.maxAgeUs = maxAgeUs;
  }

  /**
   * Starts a new session (§7.4 step 1) for {@code expectedProducer}, taken unmodified from a validated
   * catalog descriptor, under {@code newLease}. A newer session fences the older one: the lane clears its
   * ready bit and ignores the old lease. On failure nothing changes.
   *
   * @param connectionRelay the relay identity of the connection epoch if already known (e.g. from
   *     {@code GetRelayInfo} or the catalog), else null: then the first frame's relay is pinned
   * @param nowUs the current time in µs; the snapshot must progress within the max-age from here
   * @return the lane's answer; only {@link LaneAssignmentResult#ASSIGNED} binds
   */
  public LaneAssignmentResult bind(
      ProducerIdentity expectedProducer, LaneLease newLease, @Nullable RelayIdentity connectionRelay, long nowUs) {
    Objects.requireNonNull(expectedProducer, "expectedProducer");
    Objects.requireNonNull(newLease, "newLease");
    LaneAssignmentResult result = lane.assign(expectedProducer.poolId(), expectedProducer.ckfFormat(), newLease);
    if (result != LaneAssignmentResult.ASSIGNED) {
      return result;
    }
    expected = expectedProducer;
    lease = newLease;
    relay = connectionRelay;
    feed = new Cbi1LaneFeed<>(lane, expectedProducer.poolId(), expectedProducer.poolId().dcId().value(), newLease,
        expectedProducer.ckfFormat());
    state = ReplicaState.SYNCING;
    termination = null;
    lastActivityUs = nowUs;
    sessionGeneration++;
    return result;
  }

  /**
   * Applies one received frame at time {@code nowUs}: envelope (marker, then version, then relay), relay
   * constant, producer present and equal to the expected ProducerKey, then the kind's rules.
   */
  public FrameResult apply(PoolFrame frame, long nowUs) {
    Objects.requireNonNull(frame, "frame");
    Cbi1LaneFeed<KvPoolId> f = feed;
    ProducerIdentity exp = expected;
    if (f == null || exp == null || (state != ReplicaState.SYNCING && state != ReplicaState.LIVE)) {
      return refused();
    }
    RelayEnvelope.EnvelopeFault fault =
        RelayEnvelope.check(frame.contractMarker(), frame.protocolVersion(), frame.relay());
    if (fault != null) {
      return invalidate(switch (fault) {
        case CONTRACT_MISMATCH -> ReplicaTermination.CONTRACT_MISMATCH;
        case PROTOCOL_VERSION_MISMATCH -> ReplicaTermination.PROTOCOL_VERSION_MISMATCH;
        case RELAY_MISSING -> ReplicaTermination.RELAY_MISSING;
      }, null, fault.name());
    }
    RelayIdentity frameRelay = Objects.requireNonNull(frame.relay());
    if (relay != null && !relay.equals(frameRelay)) {
      return invalidate(ReplicaTermination.RELAY_CHANGED, null, relay + " -> " + frameRelay);
    }
    ProducerIdentity producer = frame.producer();
    if (producer == null) {
      return invalidate(ReplicaTermination.PRODUCER_MISSING, null, "");
    }
    if (!producer.equals(exp)) {
      return invalidate(ReplicaTermination.IDENTITY_DRIFT, null, producer + " != " + exp);
    }
    Cbi1LaneFeed.FeedResult fed;
    switch (frame.kind()) {
      case SNAPSHOT_CHUNK -> fed = f.snapshotChunk(frame.baseSequence(), frame.sequence(), frame.payload());
      case DELTA -> fed = f.delta(frame.baseSequence(), frame.sequence(), frame.payload());
      case HEARTBEAT -> fed = f.heartbeat(frame.baseSequence(), frame.sequence(), frame.payload());
      case UNSPECIFIED -> {
        return invalidate(ReplicaTermination.UNSPECIFIED_KIND, null, "");
      }
      default -> {
        return invalidate(ReplicaTermination.UNKNOWN_KIND, null, "kind " + frame.kindNumber());
      }
    }
    relay = frameRelay;
    return afterFeed(fed, nowUs);
  }

  private FrameResult afterFeed(Cbi1LaneFeed.FeedResult fed, long nowUs) {
    switch (fed.kind()) {
      case CHUNK_ACCEPTED -> {
        lastActivityUs = nowUs;
        return CHUNK;
      }
      case SNAPSHOT_INSTALLED -> {
        lastActivityUs = nowUs;
        state = ReplicaState.LIVE;
        return INSTALLED;
      }
      case DELTA_APPLIED -> {
        lastActivityUs = nowUs;
        return DELTA;
      }
      case HEARTBEAT_CONFIRMED -> {
        lastActivityUs = nowUs;
        return HEARTBEAT;
      }
      case DECODE_FAILED -> {
        return invalidate(ReplicaTermination.DECODE_FAILED, fed, fed.detail());
      }
      case ENVELOPE_MISMATCH -> {
        return invalidate(ReplicaTermination.ENVELOPE_MISMATCH, fed, fed.detail());
      }
      default -> {
        return invalidate(terminationOf(fed.laneOutcome()), fed, fed.detail());
      }
    }
  }

  private static ReplicaTermination terminationOf(@Nullable LaneIngestOutcome outcome) {
    if (outcome == null) {
      return ReplicaTermination.LANE_REJECTED;
    }
    return switch (outcome) {
      case IGNORED_FOREIGN_LEASE -> ReplicaTermination.LEASE_LOST;
      case IGNORED_STALE -> ReplicaTermination.STALE_SEQUENCE;
      case AWAITING_SNAPSHOT, BASE_SEQUENCE_MISMATCH, NON_CONTIGUOUS_SEQUENCE, TERMINAL_SEQUENCE_MISMATCH ->
          ReplicaTermination.GAP;
      default -> ReplicaTermination.LANE_REJECTED;
    };
  }

  /** The stream ended cleanly (§7.4 step 6: a clean EOF also invalidates). Refused when not bound. */
  public FrameResult endOfStream() {
    return isBound() ? invalidate(ReplicaTermination.END_OF_STREAM, null, "") : refused();
  }

  /** The owner drops the replica (pool gone from the catalog, new producer, shutdown). Refused when not bound. */
  public FrameResult drop() {
    return isBound() ? invalidate(ReplicaTermination.DROPPED, null, "") : refused();
  }

  /**
   * Step 7: invalidates with {@link ReplicaTermination#STALE} if no frame or heartbeat arrived within the
   * max-age before {@code nowUs}; otherwise (or when not bound) changes nothing and returns null.
   */
  public @Nullable FrameResult expireIfStale(long nowUs) {
    if (!isBound() || !olderThanMaxAge(nowUs)) {
      return null;
    }
    return invalidate(ReplicaTermination.STALE, null, "no frame for more than " + maxAgeUs + " µs");
  }

  /** True if the installed filter may be used at {@code nowUs}: live, lane ready under our lease, fresh. */
  public boolean isUsable(long nowUs) {
    return state == ReplicaState.LIVE && lane.isReady() && Objects.equals(lane.lease(), lease) && !olderThanMaxAge(nowUs);
  }

  private boolean olderThanMaxAge(long nowUs) {
    return nowUs > lastActivityUs && nowUs - lastActivityUs > maxAgeUs;
  }

  private boolean isBound() {
    return state == ReplicaState.SYNCING || state == ReplicaState.LIVE;
  }

  private FrameResult refused() {
    return new FrameResult(Outcome.REFUSED, termination, null, "replica is " + state);
  }

  private FrameResult invalidate(ReplicaTermination reason, Cbi1LaneFeed.@Nullable FeedResult fed, String detail) {
    LaneLease ours = lease;
    if (reason != ReplicaTermination.LEASE_LOST && ours != null && ours.equals(lane.lease())) {
      lane.retire();
    }
    state = ReplicaState.INVALIDATED;
    termination = reason;
    feed = null;
    return new FrameResult(Outcome.INVALIDATED, reason, fed, detail);
  }

  /** The current state. */
  public ReplicaState state() {
    return state;
  }

  /** The reason of the last invalidation, or null while bound or never bound. */
  public @Nullable ReplicaTermination termination() {
    return termination;
  }

  /** The ProducerKey of the current or last session, or null if never bound. */
  public @Nullable ProducerIdentity expectedProducer() {
    return expected;
  }

  /** The lease of the current or last session, or null if never bound. */
  public @Nullable LaneLease lease() {
    return lease;
  }

  /** The relay identity pinned for this session, or null before the first frame when none was given. */
  public @Nullable RelayIdentity relay() {
    return relay;
  }

  /** The installed sequence (unsigned); meaningful only in {@link ReplicaState#LIVE}. */
  public long installedSequence() {
    return lane.installedSequence();
  }

  /** Counts successful binds; a newer session fences every older one. */
  public long sessionGeneration() {
    return sessionGeneration;
  }

  /** The time (µs) of the last accepted frame, or of the bind before any. */
  public long lastActivityUs() {
    return lastActivityUs;
  }

  @Override
  public String toString() {
    return "PoolReplica[" + state + ", lane=" + lane.lane() + ", termination=" + termination + "]";
  }
}
