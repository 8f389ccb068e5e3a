package dev.kvrelay.benchmarks;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.CkfAddressing;
import dev.kvrelay.ckf.PackedBucket;
import dev.kvrelay.ckf.cbi1.AssembledSnapshot;
import dev.kvrelay.ckf.cbi1.Cbi1Decoder;
import dev.kvrelay.ckf.cbi1.Cbi1Frame;
import dev.kvrelay.ckf.cbi1.SnapshotAssembly;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Event → remote replica applied latency over loopback gRPC, open loop at fixed rates (a main-class harness: JMH
 * has no open-loop fixed-rate mode, so this measures coordinated-omission-safe latencies itself and prints plain
 * sorted percentiles with their sample counts).
 *
 * <p>Pipeline measured, all real: a worker's {@code RouterEvent} is msgpack-encoded and published on the in-memory
 * event plane → the plane's delivery thread → the engine (decode, admission, pool actor, {@code CkfProducer}) → the
 * publication hub (CBI1 delta, 16-event threshold or 1 ms timer, the defaults) → {@code RelayGrpcServer}
 * (SubscribeKvPool, protobuf, HTTP/2 over 127.0.0.1) → {@code RelayGrpcClient} (its inbound flow-controlled queue,
 * default bound 2) → this consumer thread, which decodes the CBI1 delta and writes its bucket images into a
 * {@code long[]} replica. See {@link WanRelayFixture} for the relay and the workload (E = 2^20, B = 2^19).
 *
 * <p>Driving: one publisher thread ticks every {@code 16 / rate} seconds (rate = <b>block events per second</b>,
 * Stored and Removed blocks both counted, as {@link PoolPipelineBenchmark} counts them); ticks alternate the Removed
 * of the Stored event published {@value #LAG} Stored events earlier and the next Stored event (16 fresh blocks), so
 * residency stays at {@value #LAG}·16 = 2^17 blocks. Tick {@code n} is <em>intended</em> at
 * {@code t0 + n·interval}, fixed before the run; a late publisher sends at once and never skips, so a stall
 * lengthens every latency behind it (no coordinated omission).
 *
 * <p>Latency of Stored event {@code s} = the time the consumer finished applying the first delta after which the
 * replica holds the fingerprints of both {@code s}'s first and last block, minus {@code s}'s intended time. Events
 * are applied in order (one publisher, one pool actor), so after each delta the consumer advances a watermark over
 * every event now visible. If an event's Removed was already sent before it became visible (the backlog exceeded
 * {@value #LAG} Stored events), the rate is reported as not sustainable.
 *
 * <p>At the end the replica is checked exactly: it holds every live block and exactly the live blocks' count of
 * fingerprints.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks-all.jar dev.kvrelay.benchmarks.WanLatencyBenchmark \
 *     [rates=10000,100000,1000000] [seconds=5] [warmup=2] [queue=2 (the client's inbound queue bound)]
 *     [pubqueue=16 (the engine's publication_queue_capacity)] [spin=false]
 *     [prefill=50000 (block events/s of the unmeasured prefill)] [plane=memory|zmq|nats]
 * }</pre>
 *
 * <p>{@code plane=zmq} runs the relay on the ZMQ plugin (direct mode: the worker's jeromq PUB on loopback, advertised
 * as its EventChannel), {@code plane=nats} on the NATS plugin (a {@code nats-server} child process on a free port,
 * the worker publishing with jnats); see {@link WanRelayFixture.Plane}. Anything the plane loses or reorders (drops,
 * sequence gaps, regressions, disconnects) fails the run as the engine's own drops do. Each row ends with the CPU of
 * {@link CpuComponents}, and a markdown table of every row is printed last.
 *
 * <p>Pacing: by default the publisher parks until the next tick is due and then sends every tick already due back
 * to back (a park overshoots by tens of µs, so at high rates it sends small bursts; the intended times are unchanged,
 * so the overshoot is inside the measured latency). {@code spin=true} restores spinning through the last 80 µs before
 * each tick, which keeps one core busy from about 200k block events/s on: on a 2-core machine that starves the relay.
 * Each result row reports the CPU used while sending, in cores: the publisher thread (the simulated worker: building
 * and msgpack-encoding the events), the replica consumer thread, the rest of the JVM (the relay: event plane, engine,
 * gRPC server and client), and the whole machine (other processes included).
 */
public final class WanLatencyBenchmark {
  /** Stored events resident between a Stored and its Removed. */
  static final int LAG = 1 << 13;
  /** Ring of per-event intended times, probes and latencies (more than any phase's Stored events). */
  static final int RING = 1 << 21;
  static final int MASK = RING - 1;
  private static final long EXPECTED_BLOCKS = 1L << 20;
  /** Block events per second of the unmeasured prefill (default). */
  private static final long PREFILL_RATE = 50_000;
  private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final long STATS_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private final WanRelayFixture fixture;
  private final CkfAddressing addressing;
  private final long[] intended = new long[RING];
  private final long[] probeFirst = new long[RING];
  private final long[] probeLast = new long[RING];
  private final long[] latency = new long[RING];
  private final long[] canonicals = new long[WanRelayFixture.BLOCKS];
  /** Stored events published (publisher thread writes, after the rings). */
  private volatile long stored;
  /** Stored events whose Removed was decided (set before it is published). */
  private volatile long removed;
  /** Stored events visible in the replica (consumer thread writes). */
  private volatile long watermark;
  private volatile @Nullable String failure;
  private volatile boolean stopping;
  private volatile long deltas;
  private volatile long resnapshots;
  private volatile long @Nullable [] words;
  /** Publisher pacing: true spins the last 80 µs before each tick (one core busy at high rates); false parks. */
  private final boolean spin;
  private final long prefillRate;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  /** Markdown rows, one per measured or failed phase. */
  private final List<String> table = new ArrayList<>();
  private volatile long consumerThreadId = -1;

  private WanLatencyBenchmark(WanRelayFixture fixture, boolean spin, long prefillRate) {
    this.fixture = fixture;
    this.spin = spin;
    this.prefillRate = prefillRate;
    this.addressing = CkfAddressing.of(fixture.pool.producer().ckfFormat());
  }

  public static void main(String[] args) throws Exception {
    long[] rates = {10_000, 100_000, 1_000_000};
    double seconds = 5;
    double warmup = 2;
    int queue = RelayGrpcClient.DEFAULT_INBOUND_QUEUE_BOUND;
    long pubQueue = RelayConfigKey.PUBLICATION_QUEUE_CAPACITY.defaultValue();
    boolean spin = false;
    long prefill = PREFILL_RATE;
    WanRelayFixture.Plane plane = WanRelayFixture.Plane.MEMORY;
    for (String a : args) {
      String[] kv = a.split("=", 2);
      switch (kv[0]) {
        case "rates" -> rates = Arrays.stream(kv[1].split(",")).mapToLong(Long::parseLong).toArray();
        case "seconds" -> seconds = Double.parseDouble(kv[1]);
        case "warmup" -> warmup = Double.parseDouble(kv[1]);
        case "queue" -> queue = Integer.parseInt(kv[1]);
        case "pubqueue" -> pubQueue = Long.parseLong(kv[1]);
        case "spin" -> spin = Boolean.parseBoolean(kv[1]);
        case "prefill" -> prefill = Long.parseLong(kv[1]);
        case "plane" -> plane = WanRelayFixture.Plane.parse(kv[1]);
        default -> throw new IllegalArgumentException(
            "unknown argument " + a + " (rates=, seconds=, warmup=, queue=, pubqueue=, spin=, prefill=, plane=)");
      }
    }
    try (WanRelayFixture f = new WanRelayFixture(plane, EXPECTED_BLOCKS, queue, pubQueue)) {
      System.out.println("# plane " + plane + ", client inbound queue bound " + queue
          + ", engine publication_queue_capacity " + pubQueue
          + ", publisher pacing " + (spin ? "spin (last 80 us before each tick)" : "park (sends every due tick on wake)"));
      new WanLatencyBenchmark(f, spin, prefill).run(rates, seconds, warmup);
    }
  }

  private void run(long[] rates, double seconds, double warmup) throws Exception {
    CkfFormat format = fixture.pool.producer().ckfFormat();
    System.out.printf(Locale.ROOT, "# WanLatencyBenchmark: B=%d, LAG=%d stored events (%d resident blocks), "
        + "rate unit = block events/s (stored + removed), load %s%n", format.bucketCount(), LAG,
        LAG * WanRelayFixture.BLOCKS, loadAverage());
    RelayStream<PoolFrame> stream = WireSources.of(fixture.client).subscribePool(fixture.pool.poolId(), fixture.pool.producer(),
        "wan-latency-bench").get(30, TimeUnit.SECONDS);
    Thread consumer = new Thread(() -> {
      consumerThreadId = Thread.currentThread().getId();
      consume(stream, format);
    }, "wan-bench-replica");
    consumer.setDaemon(true);
    consumer.start();
    long installDeadline = System.nanoTime() + WAIT_NANOS;
    while (words == null && failure == null && System.nanoTime() < installDeadline) {
      Thread.sleep(1);
    }
    if (words == null) {
      throw new IllegalStateException("no snapshot installed: " + failure);
    }
    // Prefill: LAG stored events, paced at PREFILL_RATE block events/s (not measured); the replica catches up.
    long t = System.nanoTime();
    double prefillInterval = WanRelayFixture.BLOCKS * 1e9 / prefillRate;
    for (int i = 0; i < LAG && failure == null; i++) {
      long at = t + (long) (i * prefillInterval);
      while (System.nanoTime() < at) {
        LockSupport.parkNanos(50_000);
      }
      store(at);
    }
    awaitWatermark(stored);
    System.out.printf(Locale.ROOT, "# prefilled %d blocks in %.2f s%n", LAG * WanRelayFixture.BLOCKS,
        (System.nanoTime() - t) / 1e9);
    List<String> rows = new ArrayList<>();
    if (failure != null) {
      String d = drops();
      rows.add(String.format(Locale.ROOT, "prefill at %,d block ev/s FAILED: %s%s; load %s", prefillRate, failure,
          d.isEmpty() ? "" : " [engine drops: " + d + "]", loadAverage()));
    }
    for (int i = 0; i < rates.length && failure == null; i++) {
      long rate = rates[i];
      String result = phase(rate, warmup, false);
      if (failure == null) {
        result = phase(rate, seconds, true);
        if (failure == null) {
          rows.add(result);
        }
      }
      if (failure != null) {
        String d = drops();
        rows.add(String.format(Locale.ROOT, "rate %,d: NOT SUSTAINABLE: %s%s; %s; load %s", rate, failure,
            d.isEmpty() ? "" : " [engine drops: " + d + "]", result, loadAverage()));
        table.add(String.format(Locale.ROOT, "| %s | %,d | %,.0f until: NOT SUSTAINABLE: %s | | | | | | %s | %s |",
            fixture.kind, rate, lastAchieved, failure, losses(), lastComponents));
        break;
      }
    }
    String check = failure == null ? checkReplica() : "skipped (run failed)";
    System.out.println("# engine " + fixture.engine.stats());
    stopping = true;
    consumer.join(5_000);
    stream.close();
    System.out.println("# results (latency = intended publish time -> delta applied at the remote replica)");
    for (String r : rows) {
      System.out.println(r);
    }
    System.out.println("# table (CPU in cores while sending: " + String.join(" / ", CpuComponents.NAMES)
        + (fixture.natsServer != null ? " / nats-server" : "") + ")");
    System.out.println("| plane | offered | achieved | p50 | p99 | p99.9 | max | samples | lost / gaps / resets"
        + " | CPU (cores) |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    for (String r : table) {
      System.out.println(r);
    }
    System.out.println("# replica check: " + check + "; deltas applied " + deltas + ", resnapshots " + resnapshots
        + "; client " + fixture.client.stats() + "; load " + loadAverage());
  }

  // ------------------------------------------------------------------ publisher

  private String phase(long rate, double seconds, boolean record) throws Exception {
    double interval = WanRelayFixture.BLOCKS * 1e9 / rate;
    long ticks = 2 * Math.max(1, (long) (seconds * rate / (2.0 * WanRelayFixture.BLOCKS)));
    long first = stored;
    long deltasBefore = deltas;
    String loadBefore = loadAverage();
    CpuSample cpuBefore = cpu();
    java.util.Map<String, long[]> threadsBefore = threadCpu();
    long natsCpuBefore = natsCpu();
    lastAchieved = 0;
    long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
    long maxSendLag = 0;
    long n = 0;
    for (; n < ticks && failure == null; n++) {
      long at = t0 + (long) (n * interval);
      long now;
      while ((now = System.nanoTime()) < at) { // ticks already due are sent back to back
        if (!spin) {
          LockSupport.parkNanos(at - now);
        } else if (at - now > 80_000) {
          LockSupport.parkNanos(at - now - 60_000);
        } else {
          Thread.onSpinWait();
        }
      }
      maxSendLag = Math.max(maxSendLag, now - at);
      if ((n & 1) == 0) {
        long r = removed;
        removed = r + 1;
        fixture.publishRemoved(r);
      } else {
        store(at);
      }
    }
    long sent = System.nanoTime();
    CpuSample cpuSent = cpu();
    long natsCpuSent = natsCpu();
    java.util.Map<String, long[]> threadsSent = threadCpu();
    String perThread = threadCpuDelta(threadsBefore, threadsSent, cpuSent.wall - cpuBefore.wall);
    lastComponents = CpuComponents.format(
        CpuComponents.delta(threadsBefore, threadsSent, cpuSent.wall - cpuBefore.wall))
        + (fixture.natsServer == null ? "" : String.format(Locale.ROOT, " / nats-server %.2f",
            (natsCpuSent - natsCpuBefore) / (double) (cpuSent.wall - cpuBefore.wall)));
    long last = stored;
    awaitWatermark(last);
    if (failure != null && sent <= t0) {
      return "failed before the " + (record ? "measured" : "warm-up") + " phase sent anything";
    }
    if (failure != null) {
      lastAchieved = n * WanRelayFixture.BLOCKS / ((sent - t0) / 1e9);
      return String.format(Locale.ROOT, "failed %s phase after %.2f s (%,d block events sent: %,.0f/s); max publisher "
          + "send lag %s; CPU while sending (cores): %s [%s]", record ? "measured" : "warm-up", (sent - t0) / 1e9,
          n * WanRelayFixture.BLOCKS, lastAchieved, ms(maxSendLag),
          cpuSent.minus(cpuBefore), perThread);
    }
    if (!record) {
      return "";
    }
    long[] sample = new long[(int) (last - first)];
    for (long s = first; s < last; s++) {
      sample[(int) (s - first)] = latency[(int) (s & MASK)];
    }
    Arrays.sort(sample);
    double achieved = ticks * WanRelayFixture.BLOCKS / ((sent - t0) / 1e9);
    table.add(String.format(Locale.ROOT, "| %s | %,d | %,.0f | %.3f | %.3f | %.3f | %.3f | %d | %s | %s |",
        fixture.kind, rate, achieved, pct(sample, 0.50) / 1e6, pct(sample, 0.99) / 1e6, pct(sample, 0.999) / 1e6,
        sample[sample.length - 1] / 1e6, sample.length, losses(), lastComponents));
    return String.format(Locale.ROOT,
        "rate %,d block ev/s (achieved %,.0f): n=%d stored events, p50 %s, p90 %s, p99 %s, p99.9 %s, max %s;"
            + " max publisher send lag %s; deltas %d; CPU while sending (cores): %s [%s]; load %s -> %s",
        rate, achieved, sample.length, ms(pct(sample, 0.50)), ms(pct(sample, 0.90)), ms(pct(sample, 0.99)),
        ms(pct(sample, 0.999)), ms(sample[sample.length - 1]), ms(maxSendLag), deltas - deltasBefore,
        cpuSent.minus(cpuBefore), perThread, loadBefore, loadAverage());
  }

  /** Publishes the next Stored event with intended time {@code at}, after filling its ring slot. */
  private void store(long at) {
    long s = stored;
    int slot = (int) (s & MASK);
    WanRelayFixture.canonicals(s, canonicals);
    intended[slot] = at;
    probeFirst[slot] = addressing.prepare(canonicals[0]);
    probeLast[slot] = addressing.prepare(canonicals[WanRelayFixture.BLOCKS - 1]);
    stored = s + 1;
    fixture.publishStored(s);
  }

  private void awaitWatermark(long target) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT_NANOS;
    long nextStats = System.nanoTime() + STATS_NANOS;
    while (watermark < target && failure == null) {
      long now = System.nanoTime();
      if (now > deadline) {
        failure = "replica did not reach stored event " + target + " within 60 s (at " + watermark + ")";
        return;
      }
      if (now > nextStats) {
        checkDrops();
        nextStats = now + STATS_NANOS;
      }
      Thread.sleep(1);
    }
    checkDrops();
  }

  /** Fails the run if the engine dropped any event (its mailbox or recovery inbox was full): it never recovers here. */
  private void checkDrops() {
    String d = drops();
    if (!d.isEmpty() && failure == null) {
      failure = "the engine dropped events: " + d;
    }
  }

  /** Block events/s the last failed phase sent before it failed (table column). */
  private double lastAchieved;
  /** CPU of the last phase's sending, by {@link CpuComponents} (table column). */
  private String lastComponents = "";

  private long natsCpu() {
    return fixture.natsServer == null ? 0 : fixture.natsServer.cpuNanos();
  }

  /**
   * The table's loss column: messages the plane lost (its own counters), engine drops (mailbox full, recovery inbox
   * overflows, rejected submits), sequence gaps the engine saw, and source resets (cold / live-only / degraded).
   */
  private String losses() {
    long engineDrops = 0;
    long gaps = 0;
    long resets = 0;
    for (PoolStats p : fixture.engine.stats().pools()) {
      engineDrops += (p.actor() == null ? 0 : p.actor().mailboxFull()) + p.recovery().inboxOverflows()
          + p.recovery().submitRejected();
      gaps += p.recovery().gaps();
      resets += p.recovery().lifecycleResets() + p.recovery().liveOnlyResets() + p.recovery().degradedResets();
    }
    String plane = fixture.planeLosses();
    return (plane.isEmpty() ? "plane 0" : plane) + ", engine " + engineDrops + " / " + gaps + " / " + resets;
  }

  /** The engine's and the plane's event drops, empty if none. */
  private String drops() {
    StringBuilder b = new StringBuilder(fixture.planeLosses());
    for (PoolStats p : fixture.engine.stats().pools()) {
      long mailboxFull = p.actor() == null ? 0 : p.actor().mailboxFull();
      long inbox = p.recovery().inboxOverflows();
      long rejected = p.recovery().submitRejected();
      if (mailboxFull + inbox + rejected != 0) {
        b.append(b.length() == 0 ? "" : "; ").append("actor mailboxFull=").append(mailboxFull)
            .append(", recovery inboxOverflows=").append(inbox)
            .append(", submitRejected=").append(rejected).append(", gaps=").append(p.recovery().gaps());
      }
    }
    return b.toString();
  }

  // ------------------------------------------------------------------ consumer

  private void consume(RelayStream<PoolFrame> stream, CkfFormat format) {
    SnapshotAssembly assembly = new SnapshotAssembly(format);
    long sequence = -1;
    long[] w = null;
    try {
      while (!stopping && failure == null) {
        PoolFrame f = stream.poll(50, TimeUnit.MILLISECONDS);
        if (f == null) {
          if (stream.isFinished()) {
            failure = "pool stream finished";
          }
          continue;
        }
        switch (f.kind()) {
          case SNAPSHOT_CHUNK -> {
            Optional<AssembledSnapshot> done = assembly.accept(f.payload());
            if (done.isPresent()) {
              if (w != null) {
                resnapshots++;
              }
              w = done.get().words();
              sequence = f.sequence();
              words = w;
              advance(w, System.nanoTime());
            }
          }
          case DELTA -> {
            if (w == null || f.baseSequence() != sequence) {
              failure = "delta " + f + " after sequence " + sequence;
              return;
            }
            Cbi1Frame.Delta d = (Cbi1Frame.Delta) Cbi1Decoder.decode(format, f.payload());
            int[] buckets = d.buckets();
            long[] images = d.words();
            for (int i = 0; i < buckets.length; i++) {
              w[buckets[i]] = images[i];
            }
            sequence = f.sequence();
            deltas++;
            advance(w, System.nanoTime());
          }
          default -> { }
        }
      }
    } catch (RelayException e) {
      failure = "pool stream ended: " + e.reason() + " " + e.getMessage();
    } catch (Exception e) {
      failure = "consumer failed: " + e;
    }
  }

  /** Moves the watermark over every Stored event the replica now holds; records their latencies. */
  private void advance(long[] w, long appliedAt) {
    long s = watermark;
    long end = stored;
    while (s < end) {
      int slot = (int) (s & MASK);
      if (!holds(w, probeFirst[slot]) || !holds(w, probeLast[slot])) {
        if (s < removed) {
          failure = String.format(Locale.ROOT, "backlog over %d stored events: event %d was removed before it "
              + "became visible (%s behind its intended time)", LAG, s, ms(appliedAt - intended[slot]));
        }
        break;
      }
      latency[slot] = appliedAt - intended[slot];
      s++;
    }
    watermark = s;
  }

  private static boolean holds(long[] w, long prepared) {
    int fp = CkfAddressing.fingerprint(prepared);
    return PackedBucket.contains(w[CkfAddressing.bucketA(prepared)], fp)
        || PackedBucket.contains(w[CkfAddressing.bucketB(prepared)], fp);
  }

  // ------------------------------------------------------------------ final check

  /**
   * Waits (at most 10 s) until the replica holds exactly (stored − removed)·16 fingerprints, then checks every live
   * block (all 16 of each live event, recomputed) is present. Independent of the relay: the expected set is the
   * workload's definition.
   */
  private String checkReplica() throws InterruptedException {
    long live = (stored - removed) * WanRelayFixture.BLOCKS;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long occupied = -1;
    while (System.nanoTime() < deadline) {
      long[] w = words;
      occupied = 0;
      if (w != null) {
        for (long x : w) {
          occupied += PackedBucket.occupancy(x);
        }
      }
      if (occupied == live) {
        break;
      }
      Thread.sleep(10);
    }
    if (occupied != live) {
      return "FAILED: replica holds " + occupied + " fingerprints, live blocks " + live;
    }
    long[] w = words;
    long[] c = new long[WanRelayFixture.BLOCKS];
    for (long s = removed; s < stored; s++) {
      WanRelayFixture.canonicals(s, c);
      for (long h : c) {
        if (!holds(w, addressing.prepare(h))) {
          return "FAILED: live block of stored event " + s + " missing";
        }
      }
    }
    return "OK (" + live + " live blocks, exactly that many fingerprints, every live block present)";
  }

  // ------------------------------------------------------------------ CPU accounting

  /** Immutable: cumulative CPU nanoseconds at one instant (wall, publisher, consumer, this JVM, the whole machine). */
  private record CpuSample(long wall, long publisher, long consumer, long process, long machineBusy) {
    String minus(CpuSample b) {
      double w = wall - b.wall;
      long consumer = this.consumer < 0 || b.consumer < 0 ? b.consumer : this.consumer; // an ended thread: 0
      return String.format(Locale.ROOT, "publisher %.2f, replica consumer %.2f, relay+rest of JVM %.2f, "
          + "JVM %.2f, machine %.2f of %d", (publisher - b.publisher) / w, (consumer - b.consumer) / w,
          (process - b.process - (publisher - b.publisher) - (consumer - b.consumer)) / w,
          (process - b.process) / w, (machineBusy - b.machineBusy) / w, Runtime.getRuntime().availableProcessors());
    }
  }

  /** Called on the publisher thread. */
  private CpuSample cpu() {
    long consumerCpu = consumerThreadId < 0 ? -1 : threads.getThreadCpuTime(consumerThreadId); // -1: ended
    long process = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime() : 0;
    return new CpuSample(System.nanoTime(), threads.getCurrentThreadCpuTime(), consumerCpu, process, machineBusy());
  }

  /**
   * CPU nanoseconds of every thread of this process, by native thread id, with its native name (Linux
   * {@code /proc/self/task}: Java threads under their first 15 characters, and the JVM's own GC, JIT and VM threads,
   * which {@link ThreadMXBean} does not see); empty where {@code /proc} is unreadable.
   */
  private static java.util.Map<String, long[]> threadCpu() {
    java.util.Map<String, long[]> m = new java.util.HashMap<>();
    try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          String[] f = stat.substring(close + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime + stime
          m.put(t.getFileName() + " " + stat.substring(open + 1, close), new long[] {ticks * 10_000_000L});
        } catch (Exception e) {
          // the thread ended
        }
      }
    } catch (Exception e) {
      return m;
    }
    return m;
  }

  /** CPU used between two {@link #threadCpu} samples, in cores, grouped by thread name (digits folded), largest first. */
  private static String threadCpuDelta(java.util.Map<String, long[]> before, java.util.Map<String, long[]> after,
      long wallNanos) {
    java.util.Map<String, Long> byName = new java.util.TreeMap<>();
    for (java.util.Map.Entry<String, long[]> e : after.entrySet()) {
      String name = e.getKey().substring(e.getKey().indexOf(' ') + 1).replaceAll("[0-9]+", "N");
      long[] b = before.get(e.getKey());
      byName.merge(name, e.getValue()[0] - (b == null ? 0 : b[0]), Long::sum);
    }
    StringBuilder b = new StringBuilder();
    byName.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
        .filter(x -> x.getValue() * 100 >= wallNanos) // at least 0.01 core
        .forEach(x -> b.append(b.length() == 0 ? "" : ", ").append(x.getKey())
            .append(String.format(Locale.ROOT, " %.2f", x.getValue() / (double) wallNanos)));
    return b.toString();
  }

  /** Busy (non-idle, non-iowait) CPU time of the whole machine in ns, from /proc/stat; 0 if unreadable. */
  private static long machineBusy() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < f.length && i <= 8; i++) {
        if (i != 4 && i != 5) {
          busy += Long.parseLong(f[i]);
        }
      }
      return busy * 10_000_000L; // USER_HZ = 100
    } catch (Exception e) {
      return 0;
    }
  }

  // ------------------------------------------------------------------ formatting

  private static long pct(long[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
  }

  static String loadAverage() {
    try {
      String[] p = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return p[0] + " " + p[1] + " " + p[2];
    } catch (Exception e) {
      return "n/a";
    }
  }
}
