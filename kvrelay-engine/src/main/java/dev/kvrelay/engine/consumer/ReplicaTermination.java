package dev.kvrelay.engine.consumer;

/**
 * Immutable: why a {@code PoolReplica} was invalidated (wan-grpc.md §7.4 step 6). After any of these the
 * replica refuses frames until it is re-bound with a new lease.
 */
public enum ReplicaTermination {
  /** The contract marker was not {@code 0x4B565231}: deployment skew, stop (do not retry). */
  CONTRACT_MISMATCH(Action.STOP),
  /** The protocol version was not 1: deployment skew, stop (do not retry). */
  PROTOCOL_VERSION_MISMATCH(Action.STOP),
  /** The frame carried no relay identity. */
  RELAY_MISSING(Action.RESUBSCRIBE),
  /** The relay identity changed within the connection epoch: a Relay restart, drop all state and reconnect. */
  RELAY_CHANGED(Action.RECONNECT),
  /** The frame carried no producer identity. */
  PRODUCER_MISSING(Action.RESUBSCRIBE),
  /** The frame's ProducerKey differs from the expected one (identity drift). */
  IDENTITY_DRIFT(Action.RESUBSCRIBE),
  /** {@code FILTER_UPDATE_KIND_UNSPECIFIED}. */
  UNSPECIFIED_KIND(Action.RESUBSCRIBE),
  /** A kind number this build does not know. */
  UNKNOWN_KIND(Action.RESUBSCRIBE),
  /** The CBI1 payload failed decoding or snapshot assembly. */
  DECODE_FAILED(Action.RESUBSCRIBE),
  /** The payload disagreed with its envelope (kind, dc id, epoch, base epoch, heartbeat shape). */
  ENVELOPE_MISMATCH(Action.RESUBSCRIBE),
  /** A sequence gap: delta base ≠ installed sequence, seq ≠ base + 1, delta or heartbeat before the snapshot. */
  GAP(Action.RESUBSCRIBE),
  /** A frame at or below the installed sequence (a replay within one stream). */
  STALE_SEQUENCE(Action.RESUBSCRIBE),
  /** The lane refused the content (bad delta images, snapshot while ready, wrong identity). */
  LANE_REJECTED(Action.RESUBSCRIBE),
  /** The lane was re-leased to a newer session: this replica is fenced; the lane is left alone. */
  LEASE_LOST(Action.RESUBSCRIBE),
  /** No frame or heartbeat within the consumer max-age. */
  STALE(Action.RESUBSCRIBE),
  /** The stream ended cleanly (EOF). */
  END_OF_STREAM(Action.RESUBSCRIBE),
  /** The owner dropped the replica (catalog change, shutdown). */
  DROPPED(Action.RESUBSCRIBE);

  /** Immutable: what the owner does next. */
  public enum Action {
    /** Close the stream, refresh the catalog, resubscribe with backoff. */
    RESUBSCRIBE,
    /** Drop all state of the connection epoch and reconnect. */
    RECONNECT,
    /** Incompatible deployment: stop, do not retry. */
    STOP
  }

  private final Action action;

  ReplicaTermination(Action action) {
    this.action = action;
  }

  /** What the owner does next. */
  public Action action() {
    return action;
  }
}
