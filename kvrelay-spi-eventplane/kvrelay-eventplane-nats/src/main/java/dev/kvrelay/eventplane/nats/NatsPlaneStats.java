package dev.kvrelay.eventplane.nats;

/**
 * Immutable and thread-safe: a snapshot of a {@link NatsEventPlane}'s counters, cumulative since it opened
 * (closed subscriptions included). Every loss the plane observes is in one of them.
 *
 * @param connected whether the connection is up at the time of the snapshot
 * @param disconnects connection losses
 * @param reconnects connections re-established (subscriptions re-sent)
 * @param droppedMessages messages NATS discarded because a subscription was over its pending limits
 * @param newPublishers first messages of a publisher id on a subscription ({@code EventPlaneFault.NewPublisher})
 * @param lateJoins those of them whose sequence was not 0: the publisher's earlier messages were not received
 * @param sequenceGaps publisher sequence skips seen by the subscriptions ({@code EventPlaneFault.SequenceGap})
 * @param missingMessages messages missing in those skips
 * @param sequenceRegressions sequences below the one expected ({@code EventPlaneFault.SequenceRegression}: an
 *     id reused by a restarted process, or a replay)
 * @param publisherEvictions publishers forgotten by a subscription's sequence check (capacity); each one's
 *     next message is a new publisher again
 * @param delivered messages decoded and handed to a listener
 * @param decodeErrors messages that failed to decode (reported through {@code onDecodeError})
 * @param listenerFailures listener callbacks that threw
 * @param faultsReported faults handed to listeners through {@code onFault}
 */
public record NatsPlaneStats(
    boolean connected,
    long disconnects,
    long reconnects,
    long droppedMessages,
    long newPublishers,
    long lateJoins,
    long sequenceGaps,
    long missingMessages,
    long sequenceRegressions,
    long publisherEvictions,
    long delivered,
    long decodeErrors,
    long listenerFailures,
    long faultsReported) {}
