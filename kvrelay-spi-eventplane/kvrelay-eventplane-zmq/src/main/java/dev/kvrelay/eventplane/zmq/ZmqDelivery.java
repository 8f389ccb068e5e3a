package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.spi.eventplane.EventDecodeException;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventMessage;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.PublisherSequences;
import dev.kvrelay.spi.eventplane.ZmqFrameCheck;
import dev.kvrelay.spi.eventplane.ZmqFrames;
import java.util.EnumSet;
import java.util.List;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: confined to one {@link ZmqSubscription}'s receive thread. What a received multipart message
 * means: the frame and envelope checks ({@link ZmqFrames#check}), multi-broker de-duplication, the per-publisher
 * sequence check (the SPI's {@link PublisherSequences}) and the hand-off to the listener, each outcome counted
 * and logged. A rejected message changes no sequence state.
 */
final class ZmqDelivery {
  /** The subscription's logger: these are its messages. */
  private static final Logger LOG = LoggerFactory.getLogger(ZmqSubscription.class);

  private final ZmqCounters counters;
  private final EventListener listener;
  private final String frame0;
  private final String topic;
  private final LongPredicate expectedPublisher;
  private final PublisherSequences sequences;
  /** Present when the same message can arrive more than once (several broker XPUB endpoints). */
  private final @Nullable DuplicateWindow duplicates;
  private final EnumSet<ZmqDrop> warned = EnumSet.noneOf(ZmqDrop.class);
  /** {@link PublisherSequences#evictions()} already added to {@link ZmqCounters#publisherEvictions}. */
  private long evictionsCounted;

  /**
   * @param expectedPublisher whether a frame-1 publisher id may be accepted (direct mode: a connected channel's)
   * @param severalBrokers true when the same message can arrive more than once (several broker XPUB endpoints)
   */
  ZmqDelivery(ZmqCounters counters, EventListener listener, String frame0, String topic,
      LongPredicate expectedPublisher, boolean severalBrokers) {
    this.counters = counters;
    this.listener = listener;
    this.frame0 = frame0;
    this.topic = topic;
    this.expectedPublisher = expectedPublisher;
    // with several brokers a sequence below the expected one is a slower broker's late copy: deliver it, keep the
    // baseline; otherwise it is a restart or a replay, reported once
    this.sequences = new PublisherSequences(PublisherSequences.DEFAULT_CAPACITY,
        severalBrokers ? PublisherSequences.OnRegression.COUNT : PublisherSequences.OnRegression.REPORT_AND_RESTART);
    this.duplicates = severalBrokers ? new DuplicateWindow() : null;
  }

  /** Forgets {@code publisherId}'s sequence (its last channel was disconnected): its next message is new again. */
  void forget(long publisherId) {
    sequences.forget(publisherId);
  }


  /** Hands a fault (already counted and logged) to the listener. */
  void reportFault(EventPlaneFault fault) {
    try {
      listener.onFault(fault);
    } catch (RuntimeException e) {
      counters.listenerFailures.increment();
      LOG.warn("ZMQ subscription {}: listener failed on {}; delivery continues", frame0, fault, e);
    }
  }

  /** Checks, de-duplicates, sequence-checks and delivers one message of {@code frameCount} frames. */
  void handle(List<byte[]> frames, int frameCount) {
    ZmqFrameCheck check = ZmqFrames.check(frames, frame0, topic, expectedPublisher);
    if (check instanceof ZmqFrameCheck.Rejected r) {
      reject(r.error(), frameCount);
      return;
    }
    EventMessage message = ((ZmqFrameCheck.Accepted) check).message();
    EventEnvelope env = message.envelope();
    DuplicateWindow window = duplicates;
    if (window != null && window.repeated(env.publisherId(), env.sequence())) {
      counters.drop(ZmqDrop.DUPLICATE);
      LOG.debug("ZMQ subscription {}: duplicate publisher {} sequence {} dropped", frame0,
          Long.toUnsignedString(env.publisherId()), Long.toUnsignedString(env.sequence()));
      return;
    }
    EventPlaneFault.SequenceFault signal = sequences.check(env.publisherId(), env.sequence());
    countEvictions();
    if (signal != null) {
      reportBreak(signal);
    }
    try {
      message.deliverTo(listener);
      counters.delivered.increment();
    } catch (RuntimeException e) {
      counters.delivered.increment();
      counters.listenerFailures.increment();
      LOG.warn("ZMQ subscription {}: listener failed on {}; delivery continues", frame0, env, e);
    }
  }

  /** Adds the publishers the sequence check forgot since the last message to the counters (the first logged at WARN). */
  private void countEvictions() {
    long evictions = sequences.evictions();
    if (evictions == evictionsCounted) {
      return;
    }
    counters.publisherEvictions.add(evictions - evictionsCounted);
    if (evictionsCounted == 0) {
      LOG.warn("ZMQ subscription {}: more than {} publishers, the least recently heard is forgotten (its next "
          + "message is a new publisher; further evictions are logged at debug)", frame0,
          PublisherSequences.DEFAULT_CAPACITY);
    } else {
      LOG.debug("ZMQ subscription {}: forgot its least recently heard publisher ({} so far)", frame0, evictions);
    }
    evictionsCounted = evictions;
  }

  private void reportBreak(EventPlaneFault.SequenceFault signal) {
    if (signal instanceof EventPlaneFault.NewPublisher p) {
      counters.newPublishers.increment();
      LOG.info("ZMQ subscription {}: new publisher {} (first sequence {})", frame0,
          Long.toUnsignedString(p.publisherId()), Long.toUnsignedString(p.receivedSequence()));
    } else if (signal instanceof EventPlaneFault.SequenceGap g) {
      counters.sequenceGaps.increment();
      counters.missedMessages.add(g.missing());
      LOG.warn("ZMQ subscription {}: publisher {} sequence gap, expected {} got {} ({} messages lost)", frame0,
          Long.toUnsignedString(g.publisherId()), Long.toUnsignedString(g.expectedSequence()),
          Long.toUnsignedString(g.receivedSequence()), Long.toUnsignedString(g.missing()));
    } else if (signal instanceof EventPlaneFault.SequenceRegression g) {
      counters.sequenceRegressions.increment();
      LOG.warn("ZMQ subscription {}: publisher {} sequence went back, expected {} got {}", frame0,
          Long.toUnsignedString(g.publisherId()), Long.toUnsignedString(g.expectedSequence()),
          Long.toUnsignedString(g.receivedSequence()));
    }
    reportFault(signal);
  }

  private void reject(EventDecodeException error, int frameCount) {
    ZmqDrop kind = ZmqDrop.of(error);
    counters.drop(kind);
    if (warned.add(kind)) {
      LOG.warn("ZMQ subscription {}: dropped a message ({}, {} frames): {} (further {} drops are logged at debug)",
          frame0, kind, frameCount, error.getMessage(), kind);
    } else {
      LOG.debug("ZMQ subscription {}: dropped a message ({}, {} frames): {}", frame0, kind, frameCount,
          error.getMessage());
    }
    try {
      listener.onDecodeError(error, error.publisherId());
    } catch (RuntimeException e) {
      counters.listenerFailures.increment();
      LOG.warn("ZMQ subscription {}: listener failed on a decode error; delivery continues", frame0, e);
    }
  }
}
