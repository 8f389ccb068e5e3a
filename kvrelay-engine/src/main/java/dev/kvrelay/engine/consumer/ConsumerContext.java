package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.engine.actor.ActorScheduler;
import dev.kvrelay.engine.actor.SerialTask;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe (final settings, a volatile closed flag; the jitter source and the lease epoch are confined to the
 * consumer task): what every part of one {@link RelayConsumer} shares — its settings, clocks, the scheduler of its
 * one serial task, the backoff and the counters.
 */
final class ConsumerContext {
  private static final Logger LOG = LoggerFactory.getLogger(RelayConsumer.class);
  /** Messages drained per task run before the drain yields to other work on the consumer task. */
  static final int DRAIN_BUDGET = 256;

  final long consumerInstance;
  final long maxAgeUs;
  final String subscriberBase;
  final ConsumerCounters counters = new ConsumerCounters();
  private final ActorScheduler scheduler;
  private final LongSupplier nanoTime;
  private final LongSupplier epochMicros;
  private final BackoffPolicy backoff;
  private final SplittableRandom random;
  private volatile boolean closed;
  private long leaseEpoch; // consumer task

  /**
   * The context of one consumer.
   *
   * @param scheduler where the consumer's tasks run
   * @param serialise whether {@code scheduler} may run two tasks at once (a caller's executor): its tasks then go
   *     through one {@link SerialisingScheduler} queue, so they run one at a time, in order; a task that throws is
   *     logged and counted as a drain failure
   */
  ConsumerContext(long consumerInstance, long maxAgeUs, String subscriberBase, ActorScheduler scheduler,
      boolean serialise, LongSupplier nanoTime, LongSupplier epochMicros, BackoffPolicy backoff, long randomSeed) {
    this.consumerInstance = consumerInstance;
    this.maxAgeUs = maxAgeUs;
    this.subscriberBase = subscriberBase;
    this.scheduler = serialise ? new SerialisingScheduler(scheduler, e -> drainFailed("task", e)) : scheduler;
    this.nanoTime = nanoTime;
    this.epochMicros = epochMicros;
    this.backoff = backoff;
    this.random = new SplittableRandom(randomSeed);
  }

  /** Runs {@code task} on the consumer task (any thread). */
  void execute(Runnable task) {
    scheduler.execute(task);
  }

  /**
   * A serial drain on the consumer task ({@code what} names it in the log): an exception of {@code body} is logged
   * and counted in {@link ConsumerStats#drainFailures()} (the stats outlive the drain, which a detach or reset
   * replaces), and the next signal drains again.
   */
  SerialTask serialTask(String what, SerialTask.Body body) {
    return new SerialTask(scheduler, body, e -> drainFailed(what, e));
  }

  private void drainFailed(String what, RuntimeException e) {
    counters.drainFailed();
    LOG.error("consumer {}: {} drain failed", subscriberBase, what, e);
  }

  /** Runs {@code task} on the consumer task after {@code delayNanos} (any thread). */
  void schedule(Runnable task, long delayNanos) {
    scheduler.schedule(task, delayNanos);
  }

  /** The jittered backoff delay in ns after {@code failures} consecutive failures (consumer task). */
  long backoffNanos(int failures) {
    return backoff.delay(failures, random);
  }

  /** The next lane-lease epoch (consumer task); epochs only grow. */
  long nextLeaseEpoch() {
    return ++leaseEpoch;
  }

  /** The monotonic clock in µs (replica freshness, queries). */
  long monoUs() {
    return nanoTime.getAsLong() / 1_000L;
  }

  /** The wall clock in µs since the epoch (readiness, load and catalog receive times). */
  long epochMicros() {
    return epochMicros.getAsLong();
  }

  boolean closed() {
    return closed;
  }

  /** Marks the consumer closed (any thread); every later callback and timer is ignored. */
  void markClosed() {
    closed = true;
  }

  /** Errors after which a source is stopped for good rather than retried (§7.6). */
  static boolean fatal(RelayErrorReason reason) {
    return reason == RelayErrorReason.CONTRACT_MISMATCH || reason == RelayErrorReason.INVALID_REQUEST;
  }
}
