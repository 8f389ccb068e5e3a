package dev.kvrelay.launcher;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.IndexerIdentity;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.cbi1.Cbi1Encoder;
import dev.kvrelay.ckf.consumer.Cbi1LaneFeed;
import dev.kvrelay.ckf.consumer.CkfLaneOwner;
import dev.kvrelay.ckf.consumer.GlobalCkfIndexer;
import dev.kvrelay.ckf.consumer.GlobalCkfLaneIngestor;
import dev.kvrelay.ckf.consumer.GlobalCkfManifest;
import dev.kvrelay.ckf.consumer.GlobalCkfQueryResult;
import dev.kvrelay.ckf.consumer.LaneLease;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfProducerStats;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.StoredBatch;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Not thread-safe; runs on the caller's thread. The embedded default until the launcher issue lands:
 * one data center's pool fed by simulated workers, published as CBI1 and read back by a remote-style
 * consumer, showing the prefix depths a router in another data center would see.
 *
 * <p>The walk: workers store prompts (token blocks hashed the Dynamo way, engine block ids random) →
 * {@link CkfProducer} (exact ownership + CKF) → barrier snapshot and deltas → CBI1 frames → a
 * {@link Cbi1LaneFeed} into a 16-lane {@link GlobalCkfIndexer} → prefix-depth queries for requests
 * that share a prefix with what the workers cached.
 */
final class EmbeddedDemo {
  private static final int BLOCK_SIZE = 16;
  private static final int WORKERS = 4;
  private static final int RANKS = 2;
  private static final int PROMPTS = 2_000;

  private final PrintStream out;
  private final String dcName;

  EmbeddedDemo(PrintStream out, String dcName) {
    this.out = out;
    this.dcName = dcName;
  }

  void run() throws Exception {
    // ---- identity of the pool, as the relay derives it from a worker's model card
    DcId dc = DcId.derive(dcName);
    DynamoEndpointId endpoint = DynamoEndpointId.parse("dynamo/backend/generate");
    IndexerDomainId domain = IndexerIdentity.fromCard("meta/llama", "llama", BLOCK_SIZE, false, endpoint, null, null);
    RelayIdentity relay = RelayIdentity.start(1, new SecureRandom());
    CkfProducerConfig config = CkfProducerConfig.forExpectedBlocks(1_048_576).withPublishEveryNEvents(16);
    CkfFormat format = config.format();
    ProducerIdentity producerId =
        new ProducerIdentity(new KvPoolId(domain, dc), relay.relayIncarnation(), 1, format);
    out.printf("kvrelay embedded demo (no launcher yet)%n");
    out.printf("  dc_id        %s -> %s%n", dcName, dc);
    out.printf("  pool         %s%n", producerId.poolId());
    out.printf("  ckf format   %s (%d KiB per lane)%n", format, format.bucketCount() * 8L / 1024);

    // ---- producer side: one pool, workers storing prompts
    CkfProducer producer = CkfProducer.create(config);
    TokenBlockHasher hasher = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, BLOCK_SIZE);
    SplittableRandom rnd = new SplittableRandom(2026);
    List<int[]> prompts = new ArrayList<>();
    for (int i = 0; i < PROMPTS; i++) {
      prompts.add(randomTokens(rnd, BLOCK_SIZE * (4 + rnd.nextInt(60))));
    }

    // ---- consumer side: a 16-lane global view with this DC on lane 0, subscribed before traffic
    GlobalCkfIndexer<ProducerIdentity> view = GlobalCkfIndexer.create(
        GlobalCkfManifest.of(42, format, List.of(new CkfLaneOwner<>(producerId, dc.value()))));
    GlobalCkfLaneIngestor<ProducerIdentity> lane = view.claimLane(0);
    LaneLease lease = new LaneLease(42, 0, 1);
    lane.assign(producerId, format, lease);
    Cbi1LaneFeed<ProducerIdentity> feed = new Cbi1LaneFeed<>(lane, producerId, dc.value(), lease, format);
    BarrierSnapshot barrier = producer.snapshotAfterBarrier(lease.assignmentEpoch());
    long wireBytes = 0;
    int frames = 0;
    for (byte[] chunk : Cbi1Encoder.encodeSnapshot(format, dc.value(), barrier.snapshot().sequence(),
        barrier.snapshot().words())) {
      require(feed.snapshotChunk(barrier.snapshot().sequence(), barrier.snapshot().sequence(), chunk));
      wireBytes += chunk.length;
      frames++;
    }
    out.printf("  snapshot     sequence %d, %d chunk frame(s), %d bytes%n",
        barrier.snapshot().sequence(), frames, wireBytes);

    StoredBatch batch = new StoredBatch(64);
    long[] blockHashes = new long[64];
    long deltaBytes = 0;
    int deltas = 0;
    long blocks = 0;
    for (int i = 0; i < PROMPTS; i++) {
      int[] tokens = prompts.get(i);
      int n = hasher.blockHashes(tokens, blockHashes);
      int worker = rnd.nextInt(WORKERS);
      batch.reset(worker, rnd.nextInt(RANKS));
      for (int b = 0; b < n; b++) {
        batch.addBlock(rnd.nextLong(), blockHashes[b]); // engine block ids are opaque: random here
      }
      producer.stored(batch);
      blocks += n;
      if (producer.shouldDrain()) {
        CkfPublication p = producer.drain();
        if (p instanceof CkfDelta delta) {
          byte[] frame = Cbi1Encoder.encodeDelta(format, dc.value(), delta.baseSequence(), delta.sequence(),
              delta.buckets(), delta.words(), delta.imageCount());
          require(feed.delta(delta.baseSequence(), delta.sequence(), frame));
          deltaBytes += frame.length;
          deltas++;
        }
      }
    }
    CkfPublication tail = producer.drain();
    if (tail instanceof CkfDelta delta) {
      byte[] frame = Cbi1Encoder.encodeDelta(format, dc.value(), delta.baseSequence(), delta.sequence(),
          delta.buckets(), delta.words(), delta.imageCount());
      require(feed.delta(delta.baseSequence(), delta.sequence(), frame));
      deltaBytes += frame.length;
      deltas++;
    }
    CkfProducerStats stats = producer.stats();
    out.printf("  ingested     %d prompts, %d blocks from %d workers x %d ranks%n", PROMPTS, blocks, WORKERS, RANKS);
    out.printf("  producer     %s%n", stats);
    out.printf("  deltas       %d frames, %d bytes (sequence now %d; replica installed %d)%n",
        deltas, deltaBytes, producer.lastSequence(), lane.installedSequence());

    // ---- a remote router's questions
    GlobalCkfQueryResult<ProducerIdentity> result = view.newQueryResult();
    out.printf("%n  request                                   blocks  cached prefix (blocks / tokens)%n");
    for (int q = 0; q < 6; q++) {
      int[] base = prompts.get(rnd.nextInt(PROMPTS));
      int keep = q == 5 ? 0 : 1 + rnd.nextInt(base.length / BLOCK_SIZE);
      int[] request = new int[keep * BLOCK_SIZE + BLOCK_SIZE * 8];
      System.arraycopy(base, 0, request, 0, keep * BLOCK_SIZE);
      int[] fresh = randomTokens(rnd, request.length - keep * BLOCK_SIZE);
      System.arraycopy(fresh, 0, request, keep * BLOCK_SIZE, fresh.length);
      long[] sequenceHashes = hasher.sequenceHashes(request);
      view.query(sequenceHashes, result);
      int depth = result.prefixDepth(0);
      String what = keep == 0 ? "unrelated prompt" : "shares " + keep + " block(s) with a cached prompt";
      out.printf("  %-41s %6d  %6d / %d%n", what, sequenceHashes.length, depth, depth * BLOCK_SIZE);
    }
  }

  private static int[] randomTokens(SplittableRandom rnd, int n) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = rnd.nextInt(128_000);
    }
    return t;
  }

  private static void require(Cbi1LaneFeed.FeedResult r) {
    if (r.endsStream()) {
      throw new IllegalStateException("consumer rejected a frame: " + r);
    }
  }
}
