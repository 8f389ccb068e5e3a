package dev.kvrelay.discovery.etcd;

/**
 * Immutable and thread-safe: a snapshot of the etcd backend's counters, summed over every watch since the
 * backend opened. Nothing the backend skips or loses goes uncounted.
 *
 * @param eventsApplied watch events (PUT / DELETE) decoded and delivered as upserts or removals
 * @param decodeFailures entries (values or keys) that did not decode; each was logged, reported through
 *     {@code onError} and changed no state
 * @param streamInterruptions watch streams lost and re-established from the last seen revision
 * @param resyncs full GET-and-diff recoveries after a compacted or cancelled watch
 * @param compactions watches the server cancelled because their revision was compacted (each led to a resync)
 * @param leaseKeepAliveErrors transient keep-alive stream failures of the primary lease (jetcd retries them)
 * @param leaseLost true once the primary lease has expired or was revoked: the relay's own keys are gone
 * @param registrations keys currently registered under the primary lease
 */
public record EtcdDiscoveryStats(long eventsApplied, long decodeFailures, long streamInterruptions, long resyncs,
    long compactions, long leaseKeepAliveErrors, boolean leaseLost, int registrations) {}
