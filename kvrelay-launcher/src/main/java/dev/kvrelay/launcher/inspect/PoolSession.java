package dev.kvrelay.launcher.inspect;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.PackedBucket;
import dev.kvrelay.ckf.consumer.Cbi1LaneFeed;
import dev.kvrelay.ckf.consumer.CkfLaneOwner;
import dev.kvrelay.ckf.consumer.GlobalCkfBuildException;
import dev.kvrelay.ckf.consumer.GlobalCkfIndexer;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.GlobalCkfManifest;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryResult;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryStatus;
import dev.kvrelay.ckf.consumer.LaneAssignmentResult;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayEnvelope;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the inspect command's thread. One validated replica of a pool's CKF built from
 * its SubscribeKvPool frames as a consumer builds it (wan-grpc §7.4): every frame's envelope is checked with
 * {@link RelayEnvelope#check} and its producer against the subscribed one, then its CBI1 payload goes through the
 * project's {@link Cbi1LaneFeed} (decoder, ckf-cbi1 §6.6 envelope checks, snapshot assembly, strict delta rules) into
 * a one-lane Global CKF. The first violation is kept with the frame it was found in; later frames are refused.
 */
final class PoolSession {
  private static final long CONSUMER = 0x1A5B_EC7L;
  private static final int LANE = 0;

  private final ProducerIdentity expected;
  private final GlobalCkfIndexer<KvPoolId> indexer;
  private final GlobalCkfLaneIngestor<KvPoolId> lane;
  private final Cbi1LaneFeed<KvPoolId> feed;
  private @Nullable RelayIdentity relay;
  private @Nullable String violation;
  private long frames;
  private long chunks;
  private long chunkBytes;
  private long deltas;
  private long deltaBytes;
  private long heartbeats;
  private long lastHeartbeatNanos;
  private long installedNanos;
  private boolean installed;

  /** A session for {@code expected}, taken unmodified from a validated catalog descriptor. */
  PoolSession(ProducerIdentity expected) throws GlobalCkfBuildException {
    this.expected = Objects.requireNonNull(expected, "expected");
    KvPoolId pool = expected.poolId();
    indexer = GlobalCkfIndexer.create(GlobalCkfManifest.of(CONSUMER, expected.ckfFormat(),
        List.of(new CkfLaneOwner<>(pool, pool.dcId().value()))));
    lane = indexer.claimLane(LANE);
    LaneLease lease = new LaneLease(CONSUMER, LANE, 1);
    LaneAssignmentResult assigned = lane.assign(pool, expected.ckfFormat(), lease);
    if (assigned != LaneAssignmentResult.ASSIGNED) {
      throw new IllegalStateException("a fresh lane refused its first lease: " + assigned);
    }
    feed = new Cbi1LaneFeed<>(lane, pool, pool.dcId().value(), lease, expected.ckfFormat());
  }

  /**
   * Applies one received frame; returns false (and keeps the violation) if it broke the contract.
   *
   * @param nowNanos {@link System#nanoTime()} at arrival
   */
  boolean apply(PoolFrame frame, long nowNanos) {
    if (violation != null) {
      return false;
    }
    frames++;
    RelayEnvelope.EnvelopeFault fault =
        RelayEnvelope.check(frame.contractMarker(), frame.protocolVersion(), frame.relay());
    if (fault != null) {
      return fail(frame, "envelope " + fault + " (field " + fault.field() + ")");
    }
    if (relay == null) {
      relay = frame.relay();
    } else if (!relay.equals(frame.relay())) {
      return fail(frame, "relay identity changed within the stream: " + relay + " -> " + frame.relay());
    }
    if (!expected.equals(frame.producer())) {
      return fail(frame, "producer " + frame.producer() + " is not the subscribed " + expected);
    }
    PoolFrame.Kind kind = PoolFrame.Kind.of(frame.kindNumber());
    Cbi1LaneFeed.FeedResult r;
    switch (kind) {
      case SNAPSHOT_CHUNK -> {
        chunks++;
        chunkBytes += frame.payload().length;
        r = feed.snapshotChunk(frame.baseSequence(), frame.sequence(), frame.payload());
      }
      case DELTA -> {
        deltas++;
        deltaBytes += frame.payload().length;
        r = feed.delta(frame.baseSequence(), frame.sequence(), frame.payload());
      }
      case HEARTBEAT -> {
        heartbeats++;
        lastHeartbeatNanos = nowNanos;
        r = feed.heartbeat(frame.baseSequence(), frame.sequence(), frame.payload());
      }
      default -> {
        return fail(frame, "unknown filter update kind " + frame.kindNumber());
      }
    }
    if (r.kind() == Cbi1LaneFeed.Kind.IGNORED || r.endsStream()) {
      return fail(frame, r.kind() + describe(r));
    }
    if (r.kind() == Cbi1LaneFeed.Kind.SNAPSHOT_INSTALLED) {
      installed = true;
      installedNanos = nowNanos;
    }
    return true;
  }

  private static String describe(Cbi1LaneFeed.FeedResult r) {
    StringBuilder b = new StringBuilder();
    if (r.decodeError() != null) {
      b.append(' ').append(r.decodeError());
    }
    if (r.laneOutcome() != null) {
      b.append(' ').append(r.laneOutcome());
    }
    String detail = r.detail();
    for (Object named : new Object[] {r.decodeError(), r.laneOutcome()}) {
      if (named != null && detail.startsWith(named.toString())) {
        detail = detail.substring(named.toString().length()).replaceFirst("^:\\s*", "");
      }
    }
    if (!detail.isEmpty()) {
      b.append(": ").append(detail);
    }
    return b.toString();
  }

  private boolean fail(PoolFrame frame, String what) {
    violation = "frame #" + frames + " (" + PoolFrame.Kind.of(frame.kindNumber()) + ", base_sequence "
        + Long.toUnsignedString(frame.baseSequence()) + ", sequence " + Long.toUnsignedString(frame.sequence())
        + ", " + frame.payload().length + " payload bytes): " + what;
    return false;
  }

  /** Records a violation that is not about one frame (stream ended, snapshot incomplete). */
  void failStream(String what) {
    if (violation == null) {
      violation = what + " (after frame #" + frames + ")";
    }
  }

  /** The first violation, or null if every frame validated. */
  @Nullable String violation() {
    return violation;
  }

  /** True once a complete snapshot was installed. */
  boolean installed() {
    return installed;
  }

  /** Occupied fingerprint slots of the installed filter. */
  long occupiedSlots() {
    long n = 0;
    int buckets = indexer.table().bucketCount();
    for (int b = 0; b < buckets; b++) {
      long word = indexer.table().load(b, LANE);
      for (int s = 0; s < PackedBucket.SLOTS; s++) {
        if (PackedBucket.slot(word, s) != PackedBucket.EMPTY_SLOT) {
          n++;
        }
      }
    }
    return n;
  }

  /** Buckets of the filter. */
  int buckets() {
    return indexer.table().bucketCount();
  }

  /** The installed sequence (unsigned). */
  long sequence() {
    return lane.installedSequence();
  }

  /** The prefix depth (blocks) the filter answers for canonical sequence hashes, or -1 if not ready. */
  int prefixDepth(long[] sequenceHashes) {
    GlobalCkfQueryResult<KvPoolId> result = indexer.newQueryResult();
    if (indexer.query(sequenceHashes, result) != GlobalCkfQueryStatus.ANSWERED || !result.reports(LANE)) {
      return -1;
    }
    return result.prefixDepth(LANE);
  }

  long frames() {
    return frames;
  }

  long chunks() {
    return chunks;
  }

  long chunkBytes() {
    return chunkBytes;
  }

  long deltas() {
    return deltas;
  }

  long deltaBytes() {
    return deltaBytes;
  }

  long heartbeats() {
    return heartbeats;
  }

  /** {@link System#nanoTime()} of the last heartbeat, 0 if none. */
  long lastHeartbeatNanos() {
    return lastHeartbeatNanos;
  }

  /** {@link System#nanoTime()} when the snapshot was installed, 0 if not. */
  long installedNanos() {
    return installedNanos;
  }
}
