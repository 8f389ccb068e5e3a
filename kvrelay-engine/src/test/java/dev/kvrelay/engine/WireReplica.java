package dev.kvrelay.engine;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.cbi1.AssembledSnapshot;
import dev.kvrelay.ckf.cbi1.Cbi1Decoder;
import dev.kvrelay.ckf.cbi1.Cbi1Frame;
import dev.kvrelay.ckf.cbi1.SnapshotAssembly;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: the engine tests' one independent consumer of a pool stream (§2.5 framing): decodes every frame
 * with the CBI1 decoder, assembles the snapshot, applies deltas, and fails loudly on any framing violation (gap,
 * identity or relay drift, a chunk after the snapshot, an empty delta, a bad heartbeat). Independent of the view
 * package, so it checks the producer side without trusting the production consumer.
 */
public final class WireReplica {
  public final ProducerIdentity expected;
  /** The stream {@link #drain()} reads, or null when frames are fed with {@link #apply}. */
  public final @Nullable RelayStream<PoolFrame> stream;
  private final SnapshotAssembly assembly;
  private @Nullable RelayIdentity relay;
  public long @Nullable [] words;
  /** The installed sequence (-1 before the snapshot). */
  public long sequence = -1;
  /** The sequence of the stream's snapshot (-1 before it). */
  public long snapshotSequence = -1;
  public boolean installed;
  public int frames;
  public int snapshotChunks;
  public int deltas;
  public int heartbeats;
  public @Nullable RelayException ended;

  /** A replica of {@code stream}. */
  public WireReplica(ProducerIdentity expected, @Nullable RelayStream<PoolFrame> stream) {
    this.expected = expected;
    this.stream = stream;
    this.assembly = new SnapshotAssembly(expected.ckfFormat());
  }

  /** A replica fed frame by frame with {@link #apply}. */
  public WireReplica(ProducerIdentity expected) {
    this(expected, null);
  }

  /** Requires every frame to carry {@code relayIdentity} (otherwise the first frame's relay is pinned). */
  public WireReplica expectRelay(RelayIdentity relayIdentity) {
    this.relay = relayIdentity;
    return this;
  }

  /** Applies every frame available now; returns how many. */
  public int drain() throws Exception {
    RelayStream<PoolFrame> s = java.util.Objects.requireNonNull(stream, "no stream");
    int n = 0;
    for (;;) {
      PoolFrame f;
      try {
        f = s.poll();
      } catch (RelayException e) {
        ended = e;
        return n;
      }
      if (f == null) {
        return n;
      }
      apply(f);
      n++;
    }
  }

  /** Applies one frame. */
  public void apply(PoolFrame f) throws Exception {
    frames++;
    check(expected.equals(f.producer()), "producer drift: " + f.producer() + " != " + expected);
    if (relay == null) {
      relay = f.relay();
    }
    check(relay != null && relay.equals(f.relay()), "relay drift: " + f.relay() + " != " + relay);
    switch (f.kind()) {
      case SNAPSHOT_CHUNK -> {
        check(!installed, "chunk after the snapshot was installed");
        check(f.baseSequence() == f.sequence(), "snapshot chunk with base != seq: " + f);
        Cbi1Frame decoded = Cbi1Decoder.decode(expected.ckfFormat(), f.payload());
        check(decoded instanceof Cbi1Frame.SnapshotChunk, "not a snapshot chunk: " + decoded);
        check(decoded.header().dcId() == expected.poolId().dcId().value() && decoded.epoch() == f.sequence(),
            "snapshot header mismatch: " + decoded);
        snapshotChunks++;
        Optional<AssembledSnapshot> done = assembly.accept(decoded);
        if (done.isPresent()) {
          words = done.get().words().clone();
          sequence = f.sequence();
          snapshotSequence = f.sequence();
          installed = true;
        }
      }
      case DELTA -> {
        check(installed && f.baseSequence() == sequence && f.sequence() == sequence + 1,
            "delta out of order: " + f + " after " + sequence + " installed=" + installed);
        Cbi1Frame decoded = Cbi1Decoder.decode(expected.ckfFormat(), f.payload());
        check(decoded instanceof Cbi1Frame.Delta, "not a delta: " + decoded);
        Cbi1Frame.Delta d = (Cbi1Frame.Delta) decoded;
        check(d.baseEpoch() == f.baseSequence() && d.epoch() == f.sequence()
            && d.header().dcId() == expected.poolId().dcId().value(), "delta header mismatch: " + d);
        check(d.imageCount() > 0, "empty delta");
        long[] w = words;
        for (int i = 0; i < d.buckets().length; i++) {
          w[d.buckets()[i]] = d.words()[i];
        }
        sequence = f.sequence();
        deltas++;
      }
      case HEARTBEAT -> {
        check(installed && f.baseSequence() == sequence && f.sequence() == sequence && f.payload().length == 0,
            "bad heartbeat " + f + " at " + sequence);
        heartbeats++;
      }
      default -> throw new AssertionError("unexpected kind " + f);
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError("framing violation: " + what);
    }
  }
}
