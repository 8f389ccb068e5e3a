package dev.kvrelay.engine.hub;

import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.ckf.cbi1.AssembledSnapshot;
import dev.kvrelay.ckf.cbi1.Cbi1Decoder;
import dev.kvrelay.ckf.cbi1.Cbi1Frame;
import dev.kvrelay.ckf.cbi1.SnapshotAssembly;
import dev.kvrelay.engine.view.PoolFrame;
import java.util.Optional;

/**
 * Not thread-safe: an independent consumer-side reference built only on the CBI1 decoder and
 * {@link SnapshotAssembly}: checks the §2.5 framing of every frame (throws AssertionError on a violation)
 * and keeps the replica words.
 */
final class WireReplica {
  private final ProducerIdentity expected;
  private final SnapshotAssembly assembly;
  long[] words;
  long installed = -1;
  long snapshotSequence = -1;
  boolean live;
  int chunks;
  int deltas;
  int heartbeats;

  WireReplica(ProducerIdentity expected) {
    this.expected = expected;
    this.assembly = new SnapshotAssembly(expected.ckfFormat());
  }

  void apply(PoolFrame f) throws Exception {
    check(HubFixture.RELAY.equals(f.relay()), "relay");
    check(expected.equals(f.producer()), "producer");
    switch (f.kind()) {
      case SNAPSHOT_CHUNK -> {
        check(!live, "chunk after install");
        check(f.baseSequence() == f.sequence(), "chunk base != seq");
        Cbi1Frame frame = Cbi1Decoder.decode(expected.ckfFormat(), f.payload());
        check(frame instanceof Cbi1Frame.SnapshotChunk, "not a chunk");
        check(frame.epoch() == f.sequence(), "chunk epoch");
        check(frame.dcId() == expected.poolId().dcId().value(), "dc id");
        chunks++;
        Optional<AssembledSnapshot> done = assembly.accept(frame);
        if (done.isPresent()) {
          words = done.get().words().clone();
          installed = f.sequence();
          snapshotSequence = f.sequence();
          live = true;
        }
      }
      case DELTA -> {
        check(live, "delta before snapshot");
        check(f.baseSequence() == installed, "delta base " + f.baseSequence() + " != installed " + installed);
        check(f.sequence() == f.baseSequence() + 1, "delta seq");
        Cbi1Frame frame = Cbi1Decoder.decode(expected.ckfFormat(), f.payload());
        check(frame instanceof Cbi1Frame.Delta, "not a delta");
        Cbi1Frame.Delta d = (Cbi1Frame.Delta) frame;
        check(d.epoch() == f.sequence() && d.baseEpoch() == f.baseSequence(), "delta epochs");
        check(d.dcId() == expected.poolId().dcId().value(), "dc id");
        check(d.imageCount() > 0, "empty delta");
        for (int i = 0; i < d.imageCount(); i++) {
          words[d.buckets()[i]] = d.words()[i];
        }
        installed = f.sequence();
        deltas++;
      }
      case HEARTBEAT -> {
        check(live, "heartbeat before snapshot");
        check(f.baseSequence() == installed && f.sequence() == installed, "heartbeat sequence");
        check(f.payload().length == 0, "heartbeat payload");
        heartbeats++;
      }
      default -> throw new AssertionError("kind " + f.kindNumber());
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError("framing violation: " + what);
    }
  }
}
