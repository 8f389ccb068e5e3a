package dev.kvrelay.discovery.kubernetes;

/**
 * Immutable and thread-safe: a snapshot of a {@link KubernetesDiscovery}'s counters (every drop, skip,
 * interruption and background failure is counted here and logged).
 *
 * @param relists full lists of every watched resource (the first one included)
 * @param watchInterruptions watches lost (disconnect, server close), each followed by a relist
 * @param goneRelists relists caused by {@code 410 Gone} (expired resource version)
 * @param recomputes joins computed
 * @param readyWithoutUid ready EndpointSlice endpoints (or Pods) skipped because their uid is empty
 * @param ownerUidMismatches ready members skipped because their CR's ownerReference names another pod uid
 * @param invalidCrData CR versions whose {@code spec.data} was null or invalid (last valid data kept)
 * @param malformedEntries malformed {@code spec.data} entries skipped
 * @param hashMismatches endpoint/model records whose instance id differs from the CR name's hash (kept)
 * @param duplicateKeys records dropped because another CR had the same key
 * @param noEndpointSliceWarnings times CRs existed while no EndpointSlice endpoint matched (Q14)
 * @param registrations server-side applies of the relay's own CR
 * @param relistFailures relists that failed: after a lost watch (each retried with a doubling delay) or for a new
 *     watch (its caller got {@code UNAVAILABLE})
 * @param taskFailures background tasks on the state thread (event application, recompute, resync) that threw and
 *     were dropped
 * @param listenerFailures listener callbacks that threw, over every watch (each callback was dropped; the watch
 *     went on)
 * @param watchCloseFailures cluster watches whose close threw (the watch was abandoned)
 * @param cleanupFailures withdrawals or deletions of the relay's own CR on close that failed (the CR is left to
 *     the pod's garbage collection)
 */
public record KubernetesDiscoveryStats(long relists, long watchInterruptions, long goneRelists, long recomputes,
    long readyWithoutUid, long ownerUidMismatches, long invalidCrData, long malformedEntries, long hashMismatches,
    long duplicateKeys, long noEndpointSliceWarnings, long registrations, long relistFailures, long taskFailures,
    long listenerFailures, long watchCloseFailures, long cleanupFailures) {}
