package dev.kvrelay.engine;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.cbi1.AssembledSnapshot;
import dev.kvrelay.ckf.cbi1.Cbi1Decoder;
import dev.kvrelay.ckf.cbi1.Cbi1Frame;
import dev.kvrelay.ckf.cbi1.SnapshotAssembly;
import dev.kvrelay.engine.stream.RelayStream;
import dev.kvrelay.engine.view.PoolFrame;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: an independent test consumer of one pool stream: decodes every frame with the CBI1 decoder,
 * assembles snapshots, applies deltas, and fails loudly on any gap or identity drift. Independent of the view
 * package, so it checks the producer side without trusting the production consumer.
 */
final class WireReplica {
  final ProducerIdentity expected;
  final RelayStream<PoolFrame> stream;
  private final SnapshotAssembly assembly;
  long @Nullable [] words;
  long sequence = -1;
  boolean installed;
  int frames;
  int snapshotChunks;
  int deltas;
  int heartbeats;
  @Nullable RelayException ended;

  WireReplica(ProducerIdentity expected, RelayStream<PoolFrame> stream) {
    this.expected = expected;
    this.stream = stream;
    this.assembly = new SnapshotAssembly(expected.ckfFormat());
  }

  /** Applies every frame available now; returns how many. */
  int drain() throws Exception {
    int n = 0;
    for (;;) {
      PoolFrame f;
      try {
        f = stream.poll();
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

  void apply(PoolFrame f) throws Exception {
    frames++;
    if (!expected.equals(f.producer())) {
      throw new AssertionError("producer drift: " + f.producer() + " != " + expected);
    }
    switch (f.kind()) {
      case SNAPSHOT_CHUNK -> {
        if (f.baseSequence() != f.sequence()) {
          throw new AssertionError("snapshot chunk with base != seq: " + f);
        }
        Cbi1Frame decoded = Cbi1Decoder.decode(expected.ckfFormat(), f.payload());
        if (decoded.header().dcId() != expected.poolId().dcId().value() || decoded.epoch() != f.sequence()) {
          throw new AssertionError("snapshot header mismatch: " + decoded);
        }
        snapshotChunks++;
        Optional<AssembledSnapshot> done = assembly.accept(decoded);
        if (done.isPresent()) {
          words = done.get().words().clone();
          sequence = f.sequence();
          installed = true;
        }
      }
      case DELTA -> {
        if (!installed || f.baseSequence() != sequence || f.sequence() != sequence + 1) {
          throw new AssertionError("delta out of order: " + f + " after " + sequence + " installed=" + installed);
        }
        Cbi1Frame.Delta d = (Cbi1Frame.Delta) Cbi1Decoder.decode(expected.ckfFormat(), f.payload());
        if (d.baseEpoch() != f.baseSequence() || d.epoch() != f.sequence()) {
          throw new AssertionError("delta header mismatch: " + d);
        }
        long[] w = words;
        for (int i = 0; i < d.buckets().length; i++) {
          w[d.buckets()[i]] = d.words()[i];
        }
        sequence = f.sequence();
        deltas++;
      }
      case HEARTBEAT -> {
        if (!installed || f.baseSequence() != sequence || f.sequence() != sequence || f.payload().length != 0) {
          throw new AssertionError("bad heartbeat " + f + " at " + sequence);
        }
        heartbeats++;
      }
      default -> throw new AssertionError("unexpected kind " + f);
    }
  }
}
