package dev.kvrelay.eventplane.nats;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventDecodeException;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventMessage;
import dev.kvrelay.spi.eventplane.EventPlaneCodec;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventSubscription;
import dev.kvrelay.spi.eventplane.PublisherSequences;
import io.nats.client.Message;
import io.nats.client.Subscription;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: one core-NATS subscription and its delivery thread, which alone decodes, checks sequences
 * and calls the listener (the sequence check and the drop baseline are confined to it). Connection faults
 * arrive from jnats' callback thread through a concurrent queue and are reported by the delivery thread
 * before the next message, or within the fault poll interval when idle.
 */
final class NatsEventSubscription implements EventSubscription {
  private static final Logger LOG = LoggerFactory.getLogger(NatsEventSubscription.class);
  private static final AtomicInteger THREAD_IDS = new AtomicInteger();

  private final NatsEventPlane plane;
  private final EventScope scope;
  private final String topic;
  private final String subject;
  private final EventListener listener;
  private final Subscription subscription;
  private final Thread thread;
  private final ConcurrentLinkedQueue<EventPlaneFault> faults = new ConcurrentLinkedQueue<>();
  private final long pollNanos;
  private final Duration poll;
  private volatile boolean closed;

  // Confined to the delivery thread.
  private final PublisherSequences sequences;
  private long dropsReported;
  private long evictionsCounted;
  private long lastDropCheckNanos;

  NatsEventSubscription(NatsEventPlane plane, EventScope scope, String topic, String subject,
      EventListener listener, Subscription subscription) {
    this.plane = plane;
    this.scope = scope;
    this.topic = topic;
    this.subject = subject;
    this.listener = listener;
    this.subscription = subscription;
    this.poll = plane.faultPollInterval();
    this.pollNanos = poll.toNanos();
    this.sequences =
        new PublisherSequences(plane.publisherCapacity(), PublisherSequences.OnRegression.REPORT_AND_RESTART);
    this.thread = new Thread(this::deliverLoop, "kvrelay-nats-" + THREAD_IDS.incrementAndGet() + "-" + topic);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  @Override
  public EventScope scope() {
    return scope;
  }

  @Override
  public String topic() {
    return topic;
  }

  /**
   * NATS receives every publisher of the subject: a NATS channel of this scope is accepted and ignored.
   *
   * @throws EventPlaneException {@code CLOSED} if closed; {@code UNSUPPORTED_CHANNEL} for a ZMQ or
   *     in-memory channel (that publisher is not on NATS, so nothing of it would arrive);
   *     {@code INVALID_ARGUMENT} for a NATS channel of another subject prefix (its messages go elsewhere)
   */
  @Override
  public void connect(ChannelLocator channel) throws EventPlaneException {
    if (closed) {
      throw new EventPlaneException(EventPlaneException.Kind.CLOSED, "NATS subscription to " + subject + " is closed");
    }
    if (!(channel instanceof ChannelLocator.Nats nats)) {
      throw new EventPlaneException(EventPlaneException.Kind.UNSUPPORTED_CHANNEL,
          "the NATS event plane cannot receive " + channel + " (that publisher is not on NATS)");
    }
    if (!nats.subjectPrefix().equals(scope.subjectPrefix())) {
      throw new EventPlaneException(EventPlaneException.Kind.INVALID_ARGUMENT, "NATS channel subject prefix '"
          + nats.subjectPrefix() + "' is not this subscription's '" + scope.subjectPrefix() + "': its messages "
          + "are published where this subscription does not listen");
    }
  }

  @Override
  public void disconnect(ChannelLocator channel) {
    // Every publisher of the subject is received; nothing to undo.
  }

  /** Messages NATS dropped for this subscription so far (read live from jnats; for diagnostics and tests). */
  long transportDropped() {
    return subscription.getDroppedCount();
  }

  /** Messages waiting in this subscription's pending queue (read live from jnats). */
  long transportPending() {
    return subscription.getPendingMessageCount();
  }

  void enqueueFault(EventPlaneFault fault) {
    if (!closed) {
      faults.add(fault);
    }
  }

  private void deliverLoop() {
    lastDropCheckNanos = System.nanoTime();
    while (!closed) {
      Message m;
      try {
        m = subscription.nextMessage(poll);
      } catch (InterruptedException e) {
        if (closed) {
          return;
        }
        continue;
      } catch (IllegalStateException e) {
        if (!closed) {
          LOG.error("NATS subscription to {} ended unexpectedly: {}", subject, e.getMessage());
          report(new EventPlaneFault.Disconnected("subscription to " + subject + " ended: " + e.getMessage()));
        }
        return;
      }
      if (closed) {
        return;
      }
      reportQueuedFaults();
      long now = System.nanoTime();
      if (m == null || now - lastDropCheckNanos >= pollNanos) {
        lastDropCheckNanos = now;
        reportDrops();
      }
      if (m != null) {
        handle(m.getData());
      }
    }
  }

  private void reportQueuedFaults() {
    EventPlaneFault f;
    while (!closed && (f = faults.poll()) != null) {
      report(f);
    }
  }

  private void reportDrops() {
    long dropped = subscription.getDroppedCount();
    if (dropped > dropsReported) {
      long delta = dropped - dropsReported;
      dropsReported = dropped;
      plane.droppedMessages.add(delta);
      EventPlaneFault.MessagesDropped fault = new EventPlaneFault.MessagesDropped(delta,
          "slow consumer on " + subject + ", " + plane.pendingLimits());
      LOG.warn("NATS {}", fault.describe());
      report(fault);
    }
  }

  private void handle(byte @Nullable [] body) {
    EventMessage message;
    try {
      message = EventPlaneCodec.decodeMessage(body == null ? new byte[0] : body, topic);
    } catch (EventDecodeException e) {
      plane.decodeErrors.increment();
      LOG.debug("NATS message on {} not decodable: {}", subject, e.getMessage());
      call(() -> listener.onDecodeError(e, e.publisherId()));
      return;
    }
    EventPlaneFault.SequenceFault fault =
        sequences.check(message.envelope().publisherId(), message.envelope().sequence());
    if (fault != null) {
      countAndLog(fault);
      report(fault);
    }
    countEvictions();
    if (closed) {
      return;
    }
    plane.delivered.increment();
    call(() -> message.deliverTo(listener));
  }

  /** Counts a sequence fault in the plane's stats and logs it (a first message from sequence 0 at INFO). */
  private void countAndLog(EventPlaneFault.SequenceFault fault) {
    if (fault instanceof EventPlaneFault.NewPublisher p) {
      plane.newPublishers.increment();
      if (p.fromStart()) {
        LOG.info("NATS {} on {}", p.describe(), subject);
      } else {
        plane.lateJoins.increment();
        LOG.warn("NATS {} on {}: its earlier messages were not received (recovery restores them)", p.describe(),
            subject);
      }
    } else if (fault instanceof EventPlaneFault.SequenceGap gap) {
      plane.sequenceGaps.increment();
      plane.missingMessages.add(gap.missing());
      LOG.warn("NATS {} on {}", gap.describe(), subject);
    } else {
      plane.sequenceRegressions.increment();
      LOG.warn("NATS {} on {} (publisher id reused by a restarted process, or a replay); tracking restarts "
          + "from it", fault.describe(), subject);
    }
  }

  private void countEvictions() {
    long evictions = sequences.evictions();
    if (evictions != evictionsCounted) {
      plane.publisherEvictions.add(evictions - evictionsCounted);
      evictionsCounted = evictions;
      LOG.warn("NATS subscription to {} forgot its least recently seen publisher (capacity {}); its next "
          + "message is reported as a new publisher", subject, plane.publisherCapacity());
    }
  }

  private void report(EventPlaneFault fault) {
    if (closed) {
      return;
    }
    plane.faultsReported.increment();
    call(() -> listener.onFault(fault));
  }

  private void call(Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      plane.listenerFailures.increment();
      LOG.warn("event listener failed on {}; delivery continues", subject, e);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    plane.removed(this);
    faults.clear();
    try {
      subscription.unsubscribe();
    } catch (IllegalStateException e) {
      LOG.debug("NATS unsubscribe from {} after the connection closed: {}", subject, e.getMessage());
    }
    if (Thread.currentThread() != thread) {
      boolean interrupted = false;
      while (thread.isAlive()) {
        try {
          thread.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    LOG.debug("NATS subscription to {} closed", subject);
  }
}
