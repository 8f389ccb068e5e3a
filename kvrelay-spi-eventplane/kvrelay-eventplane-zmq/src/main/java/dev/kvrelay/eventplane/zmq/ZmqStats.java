package dev.kvrelay.eventplane.zmq;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Immutable and thread-safe: a snapshot of a {@link ZmqEventPlane}'s counters, summed over its subscriptions
 * since the plane opened.
 *
 * @param received multipart messages read from SUB sockets
 * @param delivered messages handed to a listener ({@code onKvEvent} / {@code onLoad})
 * @param dropped dropped messages by reason (every reason present, zero included)
 * @param newPublishers first messages of a publisher id on a subscription ({@code EventPlaneFault.NewPublisher})
 * @param sequenceGaps sequence jumps of a known publisher ({@code EventPlaneFault.SequenceGap})
 * @param missedMessages messages the gaps skipped (sum of {@code Gap.missing()})
 * @param sequenceRegressions sequences that went backwards ({@code EventPlaneFault.SequenceRegression})
 * @param publisherEvictions publishers a subscription's sequence check forgot, least recently heard first, to stay
 *     within {@code PublisherSequences.DEFAULT_CAPACITY}; each one's next message is a {@code NewPublisher} again
 * @param listenerFailures listener callbacks that threw (delivery went on)
 * @param disconnects connections to a publisher (or broker) lost after their handshake had completed
 *     ({@code EventPlaneFault.Disconnected})
 * @param reconnects those connections re-established ({@code EventPlaneFault.Reconnected})
 * @param stuckReceivers receive threads that had not ended {@link ZmqSubscription#STOP_WAIT_MS} after their
 *     subscription closed (each logged as an error; a plane that has one leaves its ZMQ context open rather than
 *     block in its termination)
 */
public record ZmqStats(long received, long delivered, Map<ZmqDrop, Long> dropped, long newPublishers,
    long sequenceGaps, long missedMessages, long sequenceRegressions, long publisherEvictions, long listenerFailures,
    long disconnects, long reconnects, long stuckReceivers) {

  /** Copies the map, filling absent reasons with zero. */
  public ZmqStats {
    EnumMap<ZmqDrop, Long> all = new EnumMap<>(ZmqDrop.class);
    for (ZmqDrop d : ZmqDrop.values()) {
      all.put(d, dropped.getOrDefault(d, 0L));
    }
    dropped = Collections.unmodifiableMap(all);
  }

  /** The messages dropped for {@code reason}. */
  public long dropped(ZmqDrop reason) {
    return dropped.getOrDefault(reason, 0L); // every reason is present (the constructor fills them)
  }

  /** All dropped messages. */
  public long droppedTotal() {
    long n = 0;
    for (long v : dropped.values()) {
      n += v;
    }
    return n;
  }
}
