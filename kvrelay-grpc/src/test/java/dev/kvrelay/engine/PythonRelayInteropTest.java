package dev.kvrelay.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.ServingReadinessState;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.PackedBucket;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.consumer.BackoffPolicy;
import dev.kvrelay.engine.consumer.GlobalViewAnswer;
import dev.kvrelay.engine.consumer.GlobalViewMatch;
import dev.kvrelay.engine.consumer.ReadinessSnapshot;
import dev.kvrelay.engine.consumer.RelayConsumer;
import dev.kvrelay.engine.consumer.ReplicaState;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.ModelKey;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.ReadinessUpdate;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interop in the other direction from {@link PythonInteropTest}: our client and consumer read an independent relay
 * written in Python ({@code src/test/python/relay_interop_server.py}) on Debian's python3-grpcio (the gRPC C core),
 * with message classes generated at test time by Debian's protoc from our relay.proto and every hash from
 * python3-xxhash. The test gives Python only the scenario: the relay and pool identities and the prompts' local
 * block hashes (what the snapshot holds, what each delta adds). Python computes the canonical chain, the CKF
 * placement, the CBI1 snapshot chunks (B = 2^20, two chunks) and deltas and the protobuf messages from the spec; the
 * test then checks that {@link RelayGrpcClient}, an independent {@link WireReplica} and a {@link RelayConsumer} read
 * exactly what Python placed. Skipped when the Python modules or protoc are missing, except with {@code CI=true},
 * where that is a failure.
 */
@Timeout(30)
class PythonRelayInteropTest {
  private static final Path SERVER = Path.of("src/test/python/relay_interop_server.py");
  private static final long STEP_SECONDS = 10;
  private static final int BLOCK = 16;
  private static final String NAMESPACE = "ns";
  private static final DynamoEndpointId ENDPOINT = new DynamoEndpointId(NAMESPACE, "backend", "generate");
  private static final CkfFormat FORMAT = CkfFormat.of(CkfFormat.DEFAULT_SEED, 1 << 20);
  private static final KvQuerySemantics SEMANTICS = new KvQuerySemantics(BLOCK, KvQueryHashFormat.DYNAMO_STANDARD_V1);
  /** The top bit set on purpose: u64 ids travel as decimal strings and must come back unsigned. */
  private static final RelayIdentity RELAY = new RelayIdentity(0xF00D_0000_0000_0001L, 0x1234_5678_9ABC_DEF1L);
  private static final long LAYOUT_GENERATION = 3;
  private static final long SNAPSHOT_SEQUENCE = 41;
  /** Blocks per prompt. */
  private static final int[] BLOCKS = {3, 4, 5};
  /** Blocks of each prompt in the snapshot: prompt 1 whole, prompt 2 two of four, prompt 3 none. */
  private static final int[] IN_SNAPSHOT = {3, 2, 0};
  /** Each delta as (prompt, first block, end block) triples: prompt 3 arrives only in deltas. */
  private static final int[][][] DELTAS = {{{2, 0, 2}}, {{2, 2, 4}}, {{2, 4, 5}}};
  /** Blocks of each prompt after the last delta. */
  private static final int[] FINAL = {3, 2, 5};

  private final SplittableRandom rnd = new SplittableRandom(0x5EED_1234L);
  private final IndexerDomainId domain = new IndexerDomainId(
      new DigestIdentity(randomBytes(16), IdentitySource.EXPLICIT),
      new DigestIdentity(randomBytes(16), IdentitySource.DEFAULT_DERIVED));
  private final ProducerIdentity producer = new ProducerIdentity(
      new KvPoolId(domain, DcId.of(0x9ABC_DEF0_1234_5678L)), RELAY.relayIncarnation(), LAYOUT_GENERATION, FORMAT);
  private final KvPoolDescriptor descriptor = new KvPoolDescriptor(producer, ENDPOINT,
      List.of(new ModelRegistration("llama", new ModelTarget.Base("llama"), List.of())), SEMANTICS,
      List.of(WorkerRole.AGGREGATED));
  private final int[][] prompts = new int[BLOCKS.length][];

  {
    for (int p = 0; p < prompts.length; p++) {
      prompts[p] = new int[BLOCKS[p] * BLOCK];
      for (int i = 0; i < prompts[p].length; i++) {
        prompts[p][i] = rnd.nextInt(1, 150_000);
      }
    }
  }

  private byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) rnd.nextInt(256);
    }
    return b;
  }

  // ------------------------------------------------------------------ (a) raw streams

  @Test
  void ourClientReadsThePythonRelaysCatalogAndAWireReplicaAssemblesItsChunkedSnapshotAndDeltas(@TempDir Path dir)
      throws Exception {
    PythonTools.requireTools();
    try (PythonRelay py = PythonRelay.start(dir, scenario());
        RelayGrpcClient client = RelayGrpcClient.builder().target("127.0.0.1:" + py.port).build()) {
      // Python's canonical chain (XXH3 seed 1337 over LE64 pairs) equals ours for every prompt.
      TokenBlockHasher hasher = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, BLOCK);
      JsonArray canonicals = (JsonArray) py.expect.get("canonicals");
      for (int p = 0; p < prompts.length; p++) {
        assertThat(u64s((JsonArray) canonicals.elements().get(p))).as("prompt %d canonical chain", p + 1)
            .containsExactly(hasher.sequenceHashes(prompts[p]));
      }
      // Python's placement (fingerprint, bucket a, bucket b) equals our addressing for every cached block.
      CkfAddressing addressing = CkfAddressing.of(FORMAT);
      JsonArray placements = (JsonArray) py.expect.get("placements");
      assertThat(placements.elements().size()).isEqualTo(FINAL[0] + FINAL[1] + FINAL[2]);
      for (JsonValue v : placements.elements()) {
        JsonObject pl = (JsonObject) v;
        long packed = addressing.prepare(Long.parseUnsignedLong(text(pl, "hash")));
        assertThat(new long[] {CkfAddressing.fingerprint(packed), CkfAddressing.bucketA(packed),
            CkfAddressing.bucketB(packed)}).as("placement %s", pl)
            .containsExactly(num(pl, "fingerprint"), num(pl, "bucket_a"), num(pl, "bucket_b"));
      }

      assertThat(client.getRelayInfo()).isEqualTo(RELAY);
      KvPoolDescriptor received;
      try (RelayStream<CatalogUpdate> catalog = WireSources.of(client).watchCatalog("java-reads-python/catalog")) {
        CatalogUpdate u = catalog.poll(STEP_SECONDS, TimeUnit.SECONDS);
        assertThat(u).as("a catalog snapshot").isNotNull();
        assertThat(u.relay()).isEqualTo(RELAY);
        assertThat(u.revision()).isEqualTo(1);
        assertThat(u.pools()).hasSize(1);
        received = CatalogValidator.validate(u.pools().get(0));
        // the stream stays open after its snapshot
        assertThat(catalog.poll(150, TimeUnit.MILLISECONDS)).isNull();
        assertThat(catalog.isFinished()).isFalse();
      }
      assertThat(received).isEqualTo(descriptor);

      RelayStream<PoolFrame> stream = WireSources.of(client).subscribePool(received.poolId(), received.producer(),
          "java-reads-python/pool").get(STEP_SECONDS, TimeUnit.SECONDS);
      try {
        WireReplica replica = new WireReplica(received.producer(), stream).expectRelay(RELAY);
        // before the release: the two-chunk snapshot at S, then heartbeats at S, no delta
        awaitFrames(replica, () -> replica.installed && replica.heartbeats >= 2);
        assertThat(replica.snapshotChunks).isEqualTo(2).isEqualTo(num(py.expect, "chunks"));
        assertThat(replica.snapshotSequence).isEqualTo(SNAPSHOT_SEQUENCE);
        assertThat(replica.sequence).isEqualTo(SNAPSHOT_SEQUENCE);
        assertThat(replica.deltas).isZero();
        assertThat(nonZero(replica.words)).as("snapshot words").isEqualTo(words(py.expect, "snapshot_words"));
        assertContainsPrefix(addressing, replica.words, 2, 0);

        py.send("RELEASE");
        long finalSequence = SNAPSHOT_SEQUENCE + DELTAS.length;
        int heartbeatsBefore = replica.heartbeats;
        awaitFrames(replica, () -> replica.sequence == finalSequence && replica.heartbeats > heartbeatsBefore);
        assertThat(num(py.expect, "final_sequence")).isEqualTo(finalSequence);
        assertThat(replica.deltas).isEqualTo(DELTAS.length);
        assertThat(replica.ended).isNull();
        Map<Integer, Long> last = nonZero(replica.words);
        assertThat(last).as("final words").isEqualTo(words(py.expect, "final_words"));
        assertThat(last.size()).as("non-trivial words").isGreaterThanOrEqualTo(10);
        assertThat(last.keySet()).as("both chunks carry words")
            .anyMatch(k -> k < (1 << 19)).anyMatch(k -> k >= (1 << 19));
        for (int p = 0; p < prompts.length; p++) {
          assertContainsPrefix(addressing, replica.words, p, FINAL[p]);
        }
      } finally {
        stream.close();
      }
      assertThat(client.stats().rejectedMessages()).isZero();
    }
  }

  // ------------------------------------------------------------------ (b) the consumer's answers

  @Test
  void aRelayConsumerOverOurClientAnswersEachPromptsDepthExactlyAsPythonPlacedItAndFollowsItsDeltas(
      @TempDir Path dir) throws Exception {
    PythonTools.requireTools();
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try (PythonRelay py = PythonRelay.start(dir, scenario());
        RelayGrpcClient client = RelayGrpcClient.builder().target("127.0.0.1:" + py.port).build();
        RelayConsumer consumer = consumer(client, executor)) {
      consumer.start();
      await("the python pool's replica is live", () -> consumer.replicaStates().size() == 1
          && consumer.replicaStates().get(0).state() == ReplicaState.LIVE);
      assertThat(consumer.replicaStates().get(0).producer()).isEqualTo(producer);
      for (int p = 0; p < prompts.length; p++) {
        GlobalViewAnswer a = consumer.query(prompts[p], "llama");
        assertThat(a.status()).isEqualTo(GlobalViewAnswer.Status.ANSWERED);
        assertThat(a.matches()).as("prompt %d before the deltas", p + 1)
            .extracting(GlobalViewMatch::pool, GlobalViewMatch::depthBlocks, GlobalViewMatch::matchedTokens)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(producer.poolId(), IN_SNAPSHOT[p],
                (long) IN_SNAPSHOT[p] * BLOCK));
      }
      // a prompt diverging inside block 2 matches one block only
      int[] diverging = prompts[0].clone();
      diverging[BLOCK + 3] ^= 1;
      assertThat(depth(consumer.query(diverging, "llama"))).isEqualTo(1);

      py.send("RELEASE");
      await("prompt 3 cached after the deltas", () -> depth(consumer.query(prompts[2], "llama")) == FINAL[2]);
      for (int p = 0; p < prompts.length; p++) {
        assertThat(depth(consumer.query(prompts[p], "llama"))).as("prompt %d after the deltas", p + 1)
            .isEqualTo(FINAL[p]);
      }
      assertThat(consumer.query(prompts[0], "other-model").status())
          .isEqualTo(GlobalViewAnswer.Status.NO_POOL_FOR_MODEL);
      // the load window lists the pool
      await("the load window", () -> consumer.load("py").orElseThrow().hasWindow());
      assertThat(consumer.load("py").orElseThrow().pools()).containsKey(producer.poolId());
      assertThat(consumer.stats().poolStreamErrors()).allSatisfy((reason, n) -> assertThat(n).isZero());
      assertThat(consumer.stats().watchErrors()).isZero();
      assertThat(consumer.stats().reconnects()).isZero();
      assertThat(consumer.stats().resubscriptions()).isZero();
      assertThat(client.stats().rejectedMessages()).isZero();
    } finally {
      executor.shutdownNow();
      assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  // ------------------------------------------------------------------ (c) readiness from a newer contract

  @Test
  void theConsumerReadsLlamaReadyAndQuarantinesAnEntryWithAStateFromANewerContractWithoutFailingTheStream(
      @TempDir Path dir) throws Exception {
    PythonTools.requireTools();
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try (PythonRelay py = PythonRelay.start(dir, scenario());
        RelayGrpcClient client = RelayGrpcClient.builder().target("127.0.0.1:" + py.port).build()) {
      // the raw stream: one message, the unknown state quarantined on its own, the stream still open
      try (RelayStream<ReadinessUpdate> raw = WireSources.of(client).watchReadinessUpdates("java-reads-python/readiness")) {
        ReadinessUpdate u = raw.poll(STEP_SECONDS, TimeUnit.SECONDS);
        assertThat(u).as("a readiness message").isNotNull();
        assertThat(u.revision()).isEqualTo(1);
        assertThat(u.entries()).hasSize(1);
        assertThat(u.entries().get(0).canonicalModelId()).isEqualTo("llama");
        assertThat(u.entries().get(0).state()).isEqualTo(ServingReadinessState.READY);
        assertThat(u.quarantined()).containsOnlyKeys(new ModelKey(NAMESPACE, "future-model"));
        assertThat(raw.poll(150, TimeUnit.MILLISECONDS)).isNull();
        assertThat(raw.isFinished()).as("the readiness stream is not failed").isFalse();
      }
      try (RelayConsumer consumer = consumer(client, executor)) {
        consumer.start();
        await("readiness", () -> consumer.readiness("py").orElseThrow().hasRevision());
        ReadinessSnapshot r = consumer.readiness("py").orElseThrow();
        assertThat(r.revision()).isEqualTo(1);
        assertThat(r.isReady(NAMESPACE, "llama")).isTrue();
        assertThat(r.entry(NAMESPACE, "llama").orElseThrow().members()).singleElement()
            .satisfies(m -> assertThat(m.poolId()).contains(producer.poolId()));
        assertThat(r.quarantined()).containsOnlyKeys(new ModelKey(NAMESPACE, "future-model"));
        assertThat(r.isQuarantined(NAMESPACE, "future-model")).isTrue();
        assertThat(r.state(NAMESPACE, "future-model")).isEmpty();
        assertThat(r.isReady(NAMESPACE, "future-model")).isFalse();
        Thread.sleep(150);
        assertThat(consumer.stats().watchErrors()).as("no watch failed").isZero();
        assertThat(consumer.stats().reconnects()).isZero();
        assertThat(consumer.readiness("py").orElseThrow().isReady(NAMESPACE, "llama")).isTrue();
      }
    } finally {
      executor.shutdownNow();
      assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  // ------------------------------------------------------------------ (d) a changed producer

  @Test
  void aSubscribeWithAChangedProducerGetsProducerChangedThroughOurClientsTypedError(@TempDir Path dir)
      throws Exception {
    PythonTools.requireTools();
    try (PythonRelay py = PythonRelay.start(dir, scenario());
        RelayGrpcClient client = RelayGrpcClient.builder().target("127.0.0.1:" + py.port).build()) {
      List<ProducerIdentity> changed = List.of(
          new ProducerIdentity(producer.poolId(), producer.producerIncarnation(), LAYOUT_GENERATION + 1, FORMAT),
          new ProducerIdentity(producer.poolId(), producer.producerIncarnation() + 1, LAYOUT_GENERATION, FORMAT),
          new ProducerIdentity(producer.poolId(), producer.producerIncarnation(), LAYOUT_GENERATION,
              CkfFormat.of(CkfFormat.DEFAULT_SEED ^ 1, FORMAT.bucketCount())));
      for (ProducerIdentity expected : changed) {
        Throwable t = catchThrowable(() -> WireSources.of(client).subscribePool(expected.poolId(), expected, "java-reads-python/old")
            .get(STEP_SECONDS, TimeUnit.SECONDS));
        assertThat(t).as("subscribe expecting %s", expected).isInstanceOf(ExecutionException.class);
        assertThat(t.getCause()).isInstanceOf(RelayException.class);
        assertThat(((RelayException) t.getCause()).reason()).isEqualTo(RelayErrorReason.PRODUCER_CHANGED);
      }
      // the right producer still subscribes on the same client
      RelayStream<PoolFrame> ok = WireSources.of(client).subscribePool(producer.poolId(), producer, "java-reads-python/new")
          .get(STEP_SECONDS, TimeUnit.SECONDS);
      try {
        PoolFrame first = ok.poll(STEP_SECONDS, TimeUnit.SECONDS);
        assertThat(first).isNotNull();
        assertThat(first.kind()).isEqualTo(PoolFrame.Kind.SNAPSHOT_CHUNK);
      } finally {
        ok.close();
      }
    }
  }

  // ------------------------------------------------------------------ scenario

  /** The scenario JSON: identities and local block hashes only; Python derives the rest. */
  private String scenario() throws Exception {
    TokenBlockHasher hasher = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, BLOCK);
    StringBuilder s = new StringBuilder();
    s.append("{\"relay\":{\"drt_instance_id\":\"").append(Long.toUnsignedString(RELAY.drtInstanceId()))
        .append("\",\"relay_incarnation\":\"").append(Long.toUnsignedString(RELAY.relayIncarnation())).append("\"},");
    s.append("\"pool\":{\"indexer_domain\":{\"cache_semantics\":").append(digest(domain.cacheSemantics()))
        .append(",\"routing_scope\":").append(digest(domain.routingScope())).append("},");
    s.append("\"dc_id\":\"").append(Long.toUnsignedString(producer.poolId().dcId().value())).append("\",");
    s.append("\"producer_incarnation\":\"").append(Long.toUnsignedString(producer.producerIncarnation()))
        .append("\",\"layout_generation\":\"").append(LAYOUT_GENERATION).append("\",");
    s.append("\"ckf_format\":{\"seed\":\"").append(Long.toUnsignedString(FORMAT.seed())).append("\",\"bucket_count\":\"")
        .append(FORMAT.bucketCount()).append("\"},");
    s.append("\"endpoint\":\"").append(ENDPOINT.namespace()).append('/').append(ENDPOINT.component()).append('/')
        .append(ENDPOINT.endpoint()).append("\",\"registration\":\"llama\",\"block_size\":").append(BLOCK)
        .append(",\"hash_format\":1,\"role\":4},");
    s.append("\"prompts\":[");
    for (int p = 0; p < prompts.length; p++) {
      s.append(p == 0 ? "[" : ",[");
      long[] local = hasher.blockHashes(prompts[p]);
      for (int i = 0; i < local.length; i++) {
        s.append(i == 0 ? "\"" : ",\"").append(Long.toUnsignedString(local[i])).append('"');
      }
      s.append(']');
    }
    s.append("],\"snapshot\":[");
    for (int p = 0; p < IN_SNAPSHOT.length; p++) {
      s.append(p == 0 ? "" : ",").append('[').append(p).append(',').append(IN_SNAPSHOT[p]).append(']');
    }
    s.append("],\"snapshot_sequence\":").append(SNAPSHOT_SEQUENCE).append(",\"deltas\":[");
    for (int d = 0; d < DELTAS.length; d++) {
      s.append(d == 0 ? "[" : ",[");
      for (int i = 0; i < DELTAS[d].length; i++) {
        int[] t = DELTAS[d][i];
        s.append(i == 0 ? "" : ",").append('[').append(t[0]).append(',').append(t[1]).append(',').append(t[2])
            .append(']');
      }
      s.append(']');
    }
    s.append("],\"heartbeat_ms\":50}");
    return s.toString();
  }

  private static String digest(DigestIdentity d) {
    StringBuilder hex = new StringBuilder();
    for (byte b : d.digest()) {
      hex.append(String.format("%02x", b & 0xFF));
    }
    return "{\"hex\":\"" + hex + "\",\"source\":" + (d.source() == IdentitySource.EXPLICIT ? 2 : 1) + "}";
  }

  private RelayConsumer consumer(RelayGrpcClient client, ScheduledExecutorService executor) {
    return RelayConsumer.builder()
        .consumerInstance(5)
        .domain(domain)
        .format(FORMAT)
        .semantics(SEMANTICS)
        .maxAgeUs(60_000_000L)
        .subscriberIdBase("java-reads-python")
        .executor(executor)
        .clocks(System::nanoTime, () -> System.currentTimeMillis() * 1000)
        .backoff(new BackoffPolicy(10_000_000L, 100_000_000L, false))
        .randomSeed(11)
        .source("py", client)
        .build();
  }

  // ------------------------------------------------------------------ checks

  /** The first {@code depth} canonical blocks of prompt {@code p} are in {@code words}, block {@code depth} is not. */
  private void assertContainsPrefix(CkfAddressing addressing, long[] words, int p, int depth) throws Exception {
    long[] canon = TokenBlockHasher.create(KvQueryHashFormat.DYNAMO_STANDARD_V1, BLOCK).sequenceHashes(prompts[p]);
    for (int i = 0; i < canon.length; i++) {
      long packed = addressing.prepare(canon[i]);
      int fp = CkfAddressing.fingerprint(packed);
      boolean present = PackedBucket.contains(words[CkfAddressing.bucketA(packed)], fp)
          || PackedBucket.contains(words[CkfAddressing.bucketB(packed)], fp);
      assertThat(present).as("prompt %d block %d present", p + 1, i).isEqualTo(i < depth);
    }
  }

  private static void awaitFrames(WireReplica replica, BooleanSupplier done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_SECONDS);
    while (!done.getAsBoolean()) {
      assertThat(replica.ended).as("pool stream ended").isNull();
      assertThat(System.nanoTime()).as("frames within %d s (replica at %d, %d deltas, %d heartbeats)",
          STEP_SECONDS, replica.sequence, replica.deltas, replica.heartbeats).isLessThan(deadline);
      if (replica.drain() == 0) {
        Thread.sleep(5);
      }
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_SECONDS);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static int depth(GlobalViewAnswer answer) {
    assertThat(answer.matches()).hasSize(1);
    return answer.matches().get(0).depthBlocks();
  }

  private static Map<Integer, Long> nonZero(long[] words) {
    Map<Integer, Long> m = new TreeMap<>();
    for (int i = 0; i < words.length; i++) {
      if (words[i] != 0) {
        m.put(i, words[i]);
      }
    }
    return m;
  }

  private static Map<Integer, Long> words(JsonObject expect, String name) {
    Map<Integer, Long> m = new TreeMap<>();
    JsonObject o = (JsonObject) expect.get(name);
    assertThat(o).as(name).isNotNull();
    for (Map.Entry<String, JsonValue> e : o.members().entrySet()) {
      m.put(Integer.parseInt(e.getKey()), Long.parseUnsignedLong(((JsonString) e.getValue()).value()));
    }
    return m;
  }

  private static long[] u64s(JsonArray a) {
    long[] out = new long[a.elements().size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = Long.parseUnsignedLong(((JsonString) a.elements().get(i)).value());
    }
    return out;
  }

  private static String text(JsonObject o, String name) {
    JsonValue v = o.get(name);
    assertThat(v).as(name).isInstanceOf(JsonString.class);
    return ((JsonString) v).value();
  }

  private static long num(JsonObject o, String name) throws Exception {
    JsonValue v = o.get(name);
    assertThat(v).as(name).isInstanceOf(JsonNumber.class);
    return ((JsonNumber) v).asLong();
  }

  /** Confined to the test thread, except its stdout pump: the Python relay as a bounded subprocess. */
  private static final class PythonRelay implements AutoCloseable {
    private final PythonProcess process;
    int port;
    JsonObject expect = JsonObject.of();

    private PythonRelay(PythonProcess process) {
      this.process = process;
    }

    /** Generates the messages, writes the scenario, starts the relay and reads its port and expectations. */
    static PythonRelay start(Path dir, String scenario) throws Exception {
      Path gen = Files.createDirectories(dir.resolve("gen"));
      PythonTools.generateMessages(gen);
      Path file = dir.resolve("scenario.json");
      Files.writeString(file, scenario);
      PythonRelay py = new PythonRelay(PythonProcess.start("relay", List.of(PythonTools.PYTHON.toString(),
          SERVER.toString(), "--scenario", file.toString(), "--gen-dir", gen.toString(), "--max-seconds", "60"),
          dir.resolve("python-relay-stderr.txt"), STEP_SECONDS));
      try {
        py.port = Integer.parseInt(py.awaitLine("PORT ").substring("PORT ".length()).trim());
        JsonValue v = Json.parse(py.awaitLine("EXPECT ").substring("EXPECT ".length()));
        assertThat(v).isInstanceOf(JsonObject.class);
        py.expect = (JsonObject) v;
        return py;
      } catch (Throwable t) {
        py.close();
        throw t;
      }
    }

    String awaitLine(String prefix) throws Exception {
      return process.awaitLine(prefix, null);
    }

    void send(String line) throws IOException {
      process.send(line);
    }

    /** Closes stdin (the relay stops on EOF), waits briefly, then kills it. */
    @Override
    public void close() throws InterruptedException {
      process.close();
    }
  }
}
