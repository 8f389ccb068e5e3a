package dev.kvrelay.grpc.client;

/**
 * Immutable and thread-safe: what a {@link RelayGrpcClient} left out or refused since it was built (nothing is
 * dropped silently).
 *
 * @param streamsOpened server-streaming calls started
 * @param rejectedMessages received messages that failed the client's checks (envelope, entry validation, an
 *     unreadable value); each ended its stream with a typed error
 * @param excludedPoolLoadEntries {@code KvPoolLoadUpdate} entries whose producer did not validate (dropped from the
 *     delivered window)
 * @param excludedServingPools {@code ServingLoadUpdate} pool entries quarantined or rejected
 * @param excludedServingModels {@code ServingLoadUpdate} model entries quarantined or rejected
 * @param callbackFailures availability callbacks that threw (the stream itself carries on)
 * @param quarantinedReadinessEntries readiness entries quarantined or dropped one by one by
 *     {@link RelayGrpcClient#watchReadinessUpdates} (counted per received message; the rest of the message is used)
 */
public record ClientStats(
    long streamsOpened,
    long rejectedMessages,
    long excludedPoolLoadEntries,
    long excludedServingPools,
    long excludedServingModels,
    long callbackFailures,
    long quarantinedReadinessEntries) {}
